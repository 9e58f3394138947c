package dev.durability.envelope.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durability.envelope.EventEnvelope;
import dev.durability.envelope.InvalidEnvelopeException;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CloudEventJsonTest {
    private static final Instant ARRIVED = Instant.parse("2026-12-05T12:00:00Z");
    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    private static EventEnvelope order() {
        return EventEnvelope.builder("order.placed", "orders")
                .aggregateId(UUID.randomUUID())
                .correlationId("checkout-7")
                .causationId("cmd-3")
                .schemaVersion(2)
                .payload(Json.createObjectBuilder()
                        .add("sku", "lamp")
                        .add("quantity", 3)
                        .add("price", new BigDecimal("12.50"))
                        .add("gift", false)
                        .addNull("note")
                        .add(
                                "lines",
                                Json.createArrayBuilder()
                                        .add(Json.createObjectBuilder().add("id", "x")))
                        .build())
                .build();
    }

    private static JsonObject json(String text) {
        return Json.createReader(new StringReader(text)).readObject();
    }

    @Test
    void anEnvelopeBecomesAStructuredCloudEventWithItsFieldsAsAttributes() {
        EventEnvelope envelope = order();
        JsonObject event = json(CloudEventJson.write(envelope, TRACEPARENT, "vendor=1"));
        assertThat(event.getString("specversion")).isEqualTo("1.0");
        assertThat(event.getString("id")).isEqualTo(envelope.id().toString());
        assertThat(event.getString("type")).isEqualTo("order.placed");
        assertThat(event.getString("source")).isEqualTo("orders");
        assertThat(event.getString("subject")).isEqualTo(envelope.aggregateId().toString());
        assertThat(Instant.parse(event.getString("time"))).isEqualTo(envelope.occurredAt());
        assertThat(event.getString("datacontenttype")).isEqualTo("application/json");
        assertThat(event.getString("correlationid")).isEqualTo("checkout-7");
        assertThat(event.getString("causationid")).isEqualTo("cmd-3");
        assertThat(event.getInt("schemaversion")).isEqualTo(2);
        assertThat(event.getString("traceparent")).isEqualTo(TRACEPARENT);
        assertThat(event.getString("tracestate")).isEqualTo("vendor=1");
        assertThat(event.getJsonObject("data")).isEqualTo(envelope.payload());
        // Every attribute name is a legal CloudEvents name: lower-case letters and digits, at most 20.
        assertThat(event.keySet()).allMatch(name -> name.matches("[a-z0-9]{1,20}"));
    }

    @Test
    void optionalAttributesAreLeftOutWhenTheEnvelopeHasNone() {
        EventEnvelope envelope = EventEnvelope.builder("order.placed", "orders").build();
        JsonObject event = json(CloudEventJson.write(envelope, null, null));
        assertThat(event).doesNotContainKeys("subject", "causationid", "traceparent", "tracestate");
        assertThat(event.getJsonObject("data")).isEmpty();
    }

    @Test
    void ourCloudEventReadsBackAsTheSameEnvelopeWithItsTraceContext() {
        EventEnvelope envelope = order();
        CloudEventJson.Decoded decoded =
                CloudEventJson.read(CloudEventJson.write(envelope, TRACEPARENT, "vendor=1"), ARRIVED);
        assertThat(decoded.envelope()).isEqualTo(envelope);
        assertThat(decoded.traceparent()).isEqualTo(TRACEPARENT);
        assertThat(decoded.tracestate()).isEqualTo("vendor=1");
    }

    @Test
    void aStoredEnvelopeWithThePayloadFirstBecomesTheSameCloudEvent() {
        EventEnvelope envelope = order();
        // PostgreSQL's jsonb text: shorter keys first, a space after every ':' and ','.
        String stored = "{\"id\": \"" + envelope.id() + "\", \"payload\": " + envelope.payload()
                + ", \"event_type\": \"order.placed\", \"occurred_at\": \"" + envelope.occurredAt()
                + "\", \"aggregate_id\": \"" + envelope.aggregateId() + "\", \"causation_id\": \"cmd-3\", "
                + "\"correlation_id\": \"checkout-7\", \"schema_version\": 2, \"source_service\": \"orders\"}";
        assertThat(json(CloudEventJson.fromEnvelopeJson(stored, null, null)))
                .isEqualTo(json(CloudEventJson.write(envelope, null, null)));
    }

    @Test
    void aStoredEnvelopeBreakingTheRulesIsNoCloudEvent() {
        String valid = EnvelopeJson.write(order());
        assertThatThrownBy(() -> CloudEventJson.fromEnvelopeJson(
                        valid.replace("\"event_type\":\"order.placed\"", "\"event_type\":\"Order\""), null, null))
                .isInstanceOf(InvalidEnvelopeException.class)
                .hasMessageContaining("event_type");
        assertThatThrownBy(() -> CloudEventJson.fromEnvelopeJson("{\"id\": ", null, null))
                .isInstanceOf(InvalidEnvelopeException.class);
    }

    @Test
    void aForeignCloudEventWithoutOurExtensionsIsConsumable() {
        String foreign = """
                {"specversion": "1.0", "id": "A234-1234-1234", "source": "https://shop.example.com/orders",
                 "type": "order.placed", "time": "2026-12-05T14:30:00.5+02:00", "subject": "order 42",
                 "datacontenttype": "application/json; charset=utf-8", "comexampleregion": "eu",
                 "data": {"order_id": "42", "quantity": 1}}
                """;
        EventEnvelope envelope = CloudEventJson.read(foreign, ARRIVED).envelope();
        UUID expectedId = UUID.nameUUIDFromBytes(
                "cloudevents:31:https://shop.example.com/orders:A234-1234-1234".getBytes(StandardCharsets.UTF_8));
        assertThat(envelope.id()).isEqualTo(expectedId);
        assertThat(CloudEventJson.read(foreign, ARRIVED).envelope().id())
                .as("every delivery of one foreign event has the same envelope id")
                .isEqualTo(expectedId);
        assertThat(envelope.eventType()).isEqualTo("order.placed");
        assertThat(envelope.sourceService()).isEqualTo("https://shop.example.com/orders");
        assertThat(envelope.occurredAt()).isEqualTo(Instant.parse("2026-12-05T12:30:00.5Z"));
        assertThat(envelope.aggregateId())
                .as("a subject that is no UUID is no aggregate id")
                .isNull();
        assertThat(envelope.schemaVersion()).isEqualTo(1);
        assertThat(envelope.correlationId()).isEqualTo(expectedId.toString());
        assertThat(envelope.causationId()).isNull();
        assertThat(envelope.payload().getString("order_id")).isEqualTo("42");
    }

    @Test
    void aMinimalCloudEventTakesTheArrivalAsItsTimeAndAnEmptyPayload() {
        String minimal = "{\"specversion\":\"1.0\",\"id\":\"1\",\"source\":\"/sensors/7\",\"type\":\"sensor.read\"}";
        EventEnvelope envelope = CloudEventJson.read(minimal, ARRIVED).envelope();
        assertThat(envelope.occurredAt()).isEqualTo(ARRIVED);
        assertThat(envelope.payload()).isEmpty();
        assertThat(CloudEventJson.read(minimal, ARRIVED).traceparent()).isNull();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "no id | {'specversion':'1.0','source':'s','type':'a.b'} | id is required",
                "empty id | {'specversion':'1.0','id':'','source':'s','type':'a.b'} | id is required",
                "no source | {'specversion':'1.0','id':'1','type':'a.b'} | source is required",
                "no type | {'specversion':'1.0','id':'1','source':'s'} | type is required",
                "no specversion | {'id':'1','source':'s','type':'a.b'} | specversion is required",
                "another specversion | {'specversion':'0.3','id':'1','source':'s','type':'a.b'} | specversion must be 1.0",
                "a type of another naming | {'specversion':'1.0','id':'1','source':'s','type':'com.Example.Created'}"
                        + " | event_type must be dotted lower-case",
                "data no object | {'specversion':'1.0','id':'1','source':'s','type':'a.b','data':[1]}"
                        + " | data must be a JSON object",
                "binary data | {'specversion':'1.0','id':'1','source':'s','type':'a.b','data_base64':'AAE='}"
                        + " | data_base64",
                "data not JSON | {'specversion':'1.0','id':'1','source':'s','type':'a.b','datacontenttype':'text/xml',"
                        + "'data':'<a/>'} | is not JSON",
                "a time no time | {'specversion':'1.0','id':'1','source':'s','type':'a.b','time':'today'}"
                        + " | time must be an RFC 3339 time",
                "an attribute not a string | {'specversion':'1.0','id':7,'source':'s','type':'a.b'}"
                        + " | id must be a string",
                "a schema version no integer | {'specversion':'1.0','id':'1','source':'s','type':'a.b',"
                        + "'schemaversion':'two'} | schemaversion must be an integer",
            })
    void aCloudEventTheEnvelopeCannotHoldIsInvalidNamingWhy(String what, String event, String why) {
        assertThatThrownBy(
                        () -> CloudEventJson.readEither(CloudEventJson.CONTENT_TYPE, event.replace('\'', '"'), ARRIVED))
                .isInstanceOf(InvalidEnvelopeException.class)
                .hasMessageContaining(why);
    }

    @Test
    void theFormatIsDecidedByContentTypeThenBySpecversion() {
        EventEnvelope envelope = order();
        String ours = EnvelopeJson.write(envelope);
        String cloudEvent = CloudEventJson.write(envelope, null, null);
        assertThat(CloudEventJson.readEither("application/json", ours, ARRIVED).envelope())
                .isEqualTo(envelope);
        assertThat(CloudEventJson.readEither(null, ours, ARRIVED).envelope()).isEqualTo(envelope);
        assertThat(CloudEventJson.readEither("Application/CloudEvents+JSON; charset=UTF-8", cloudEvent, ARRIVED)
                        .envelope())
                .isEqualTo(envelope);
        // No content type, or a plain JSON one: sniffed by its specversion.
        assertThat(CloudEventJson.readEither(null, cloudEvent, ARRIVED).envelope())
                .isEqualTo(envelope);
        assertThat(CloudEventJson.readEither("application/json", cloudEvent, ARRIVED)
                        .envelope())
                .isEqualTo(envelope);
        // Said to be a CloudEvent but the envelope's own form: judged as a CloudEvent, so invalid.
        assertThatThrownBy(() -> CloudEventJson.readEither(CloudEventJson.CONTENT_TYPE, ours, ARRIVED))
                .isInstanceOf(InvalidEnvelopeException.class)
                .hasMessageContaining("specversion is required");
        assertThatThrownBy(() -> CloudEventJson.readEither("application/cloudevents-batch+json", "[]", ARRIVED))
                .isInstanceOf(InvalidEnvelopeException.class)
                .hasMessageContaining("batch");
        assertThat(CloudEventJson.isCloudEvent(cloudEvent)).isTrue();
        assertThat(CloudEventJson.isCloudEvent(ours)).isFalse();
    }

    @Test
    void aUuidIdIsTheEnvelopeIdAsItIs() {
        UUID id = UUID.randomUUID();
        assertThat(CloudEventJson.envelopeId("anywhere", id.toString())).isEqualTo(id);
        assertThat(CloudEventJson.envelopeId("anywhere", id.toString().toUpperCase()))
                .isEqualTo(id);
        // The same id from two sources is two events.
        assertThat(CloudEventJson.envelopeId("a", "1")).isNotEqualTo(CloudEventJson.envelopeId("b", "1"));
        assertThat(CloudEventJson.envelopeId("a:1", "2")).isNotEqualTo(CloudEventJson.envelopeId("a", "1:2"));
    }

    @Test
    void extensionNamesAreLegalCloudEventsNames() {
        assertThat(CloudEventJson.extensionName("correlation_id")).isEqualTo("correlationid");
        assertThat(CloudEventJson.extensionName("causation_id")).isEqualTo("causationid");
        assertThat(CloudEventJson.extensionName("schema_version")).isEqualTo("schemaversion");
        assertThat(CloudEventJson.extensionName("Trace-Parent")).isEqualTo("traceparent");
        assertThatThrownBy(() -> CloudEventJson.extensionName("a_field_name_longer_than_twenty"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CloudEventJson.extensionName("__")).isInstanceOf(IllegalArgumentException.class);
    }
}
