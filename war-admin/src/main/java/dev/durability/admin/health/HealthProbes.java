package dev.durability.admin.health;

import dev.durability.health.boundary.HealthChecks;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

/**
 * The library's checks as MicroProfile Health probes, declared in one web module of the EAR. Open Liberty asks
 * every web module's CDI container for its health beans and lists each answer, so a bean of the EJB module, which
 * every WAR sees, was listed once per WAR; a bean of this WAR is seen by this WAR alone
 * (docs/decisions/0059-health-checks-listed-once.md).
 */
@ApplicationScoped
public class HealthProbes {

    @Inject
    HealthChecks checks;

    @Produces
    @Readiness
    HealthCheck database() {
        return checks.database();
    }

    @Produces
    @Readiness
    HealthCheck schema() {
        return checks.schema();
    }

    @Produces
    @Readiness
    HealthCheck broker() {
        return checks.broker();
    }

    @Produces
    @Liveness
    HealthCheck drain() {
        return checks.drain();
    }

    @Produces
    @Liveness
    HealthCheck consumers() {
        return checks.consumers();
    }
}
