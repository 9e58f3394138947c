package dev.durability.config.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class ServiceConfigTest {

    private static ServiceConfig config(String serviceName, String instanceName, String schema) {
        ServiceConfig config = new ServiceConfig();
        config.serviceName = Optional.ofNullable(serviceName);
        config.instanceName = Optional.ofNullable(instanceName);
        config.schema = schema;
        return config;
    }

    @Test
    void aNamedServiceOnALowerCaseSchemaIsValid() {
        assertThatCode(() -> config("orders", "orders-1", "durability").validate())
                .doesNotThrowAnyException();
    }

    @Test
    void aServiceNameThatCannotBeASourceServiceIsRefusedNamingTheKey() {
        assertThatThrownBy(() -> config("orders service!", null, "durability").validate())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("durability.service-name")
                .hasMessageContaining("orders service!");
    }

    @Test
    void aMissingServiceNameIsRefusedNamingTheKey() {
        assertThatThrownBy(() -> config(null, null, "durability").validate())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("durability.service-name")
                .hasMessageContaining("is required");
    }

    @Test
    void anInstanceNameWithSpacesIsRefusedNamingTheKey() {
        assertThatThrownBy(() -> config("orders", "orders 1", "durability").validate())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("durability.instance-name");
    }

    @Test
    void aSchemaThatIsNoLowerCaseIdentifierIsRefusedNamingTheKey() {
        assertThatThrownBy(() -> config("orders", null, "Durability; DROP").validate())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("durability.database.schema");
    }

    @Test
    void aStatementGetsTheConfiguredSchemaBeforeEveryTable() {
        assertThat(config("orders", null, "orders_events")
                        .qualify(
                                "DELETE FROM {schema}.event_outbox WHERE id IN (SELECT id FROM {schema}.event_outbox)"))
                .isEqualTo(
                        "DELETE FROM orders_events.event_outbox WHERE id IN (SELECT id FROM orders_events.event_outbox)");
    }

    @Test
    void aReservedWordAsTheSchemaIsRefusedNamingTheKey() {
        for (String reserved : new String[] {"order", "user", "group", "table"}) {
            assertThatThrownBy(() -> ServiceConfig.requireSchemaName(reserved))
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("durability.database.schema")
                    .hasMessageContaining("reserved word");
        }
        assertThatCode(() -> ServiceConfig.requireSchemaName("orders")).doesNotThrowAnyException();
    }

    @Test
    void aSchemaThatCouldNotBeWrittenUnquotedBeforeATableIsRefusedNamingTheKey() {
        assertThatThrownBy(() -> ServiceConfig.requireSchemaName("Orders-Events"))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("durability.database.schema")
                .hasMessageContaining("Orders-Events");
    }
}
