package dev.durability.admin.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class AdminApiPathTest {

    @Test
    void theReferenceContextRootMatchesTheShippedDefault() {
        assertThat(AdminApiPath.problem("/admin", Optional.of("/admin/events/")))
                .isEmpty();
    }

    @Test
    void anyContextRootListedAmongSeveralPaths() {
        assertThat(AdminApiPath.problem("/ops/durability", Optional.of("/admin/events/| /ops/durability/events/")))
                .isEmpty();
    }

    @Test
    void theRootContextHasItsApiAtEvents() {
        assertThat(AdminApiPath.problem("", Optional.of("/events/"))).isEmpty();
    }

    @Test
    void aContextRootTheVariableDoesNotFollowIsRefusedNamingTheVariableAndBothPaths() {
        assertThat(AdminApiPath.problem("/ops", Optional.of("/admin/events/")))
                .hasValueSatisfying(problem -> assertThat(problem)
                        .contains("durability.admin.api-paths", "DURABILITY_ADMIN_API_PATHS")
                        .contains("is /admin/events/")
                        .contains("does not list /ops/events/")
                        .contains("context root /ops"));
    }

    @Test
    void aPathThatOnlyContainsTheApisIsNotEnough() {
        // The server reads tokens where the URL contains a listed path: /events/replay does not contain /ops/events/.
        assertThat(AdminApiPath.problem("", Optional.of("/ops/events/"))).isPresent();
        assertThat(AdminApiPath.problem("/ops", Optional.of("/ops/events"))).isPresent();
    }

    @Test
    void aServerWithoutTheAdminIncludeIsRefusedNamingIt() {
        assertThat(AdminApiPath.problem("/admin", Optional.empty()))
                .hasValueSatisfying(problem -> assertThat(problem)
                        .contains("is not set")
                        .contains("durability-admin.xml")
                        .contains("/admin/events/"));
        assertThat(AdminApiPath.problem("/admin", Optional.of(" "))).isPresent();
    }
}
