package dev.durability;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The library's package rules (docs/decisions/0068-api-packages.md): a feature's own package
 * ({@code dev.durability.outbox}) holds its API and nothing else, the internals live in its {@code
 * boundary}, {@code control} and {@code entity} packages, the API never reaches into them, and no two
 * features or packages depend on each other in a loop.
 */
@AnalyzeClasses(packages = "dev.durability", importOptions = ImportOption.DoNotIncludeTests.class)
class PackageRulesTest {

    /** A feature's own package, one segment under {@code dev.durability}: where its API lives. */
    static final String API_PACKAGES = "dev.durability.*";

    static final String[] INTERNAL_PACKAGES = {
        "dev.durability.*.boundary..", "dev.durability.*.control..", "dev.durability.*.entity.."
    };

    /** Every type an adopter's code names (README's adoption steps, docs/outbox.md, docs/consumers.md). */
    static final Set<String> API = Set.of(
            "dev.durability.envelope.EventEnvelope",
            "dev.durability.envelope.EventEnvelope$Builder",
            "dev.durability.envelope.InvalidEnvelopeException",
            "dev.durability.inbox.EventHandler",
            "dev.durability.inbox.InboxConsumer",
            "dev.durability.inbox.InboxConsumer$QueueType",
            "dev.durability.inbox.PermanentFailure",
            "dev.durability.outbox.OutboxStager");

    @ArchTest
    static void apiPackagesHoldTheApiAndNothingElse(JavaClasses library) {
        Set<String> inApiPackages = library.that(JavaClass.Predicates.resideInAPackage(API_PACKAGES)).stream()
                // The compiler's own helpers (an enum switch's lookup table) are no type anyone names.
                .filter(type -> !type.getModifiers().contains(JavaModifier.SYNTHETIC))
                .map(JavaClass::getName)
                .filter(name -> !name.endsWith(".package-info"))
                .collect(Collectors.toSet());
        assertThat(inApiPackages).containsExactlyInAnyOrderElementsOf(API);
    }

    @ArchTest
    static final ArchRule apiTypesArePublic = classes()
            .that()
            .resideInAPackage(API_PACKAGES)
            .and()
            .doNotHaveSimpleName("package-info")
            .and()
            .doNotHaveModifier(JavaModifier.SYNTHETIC)
            .should()
            .bePublic();

    @ArchTest
    static final ArchRule apiDoesNotDependOnInternals = noClasses()
            .that()
            .resideInAPackage(API_PACKAGES)
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(INTERNAL_PACKAGES)
            .because("an adopter compiles against the API alone; the internals may change in any release");

    @ArchTest
    static final ArchRule internalsLiveInRolePackages = classes()
            .that()
            .resideOutsideOfPackage(API_PACKAGES)
            .should()
            .resideInAnyPackage(INTERNAL_PACKAGES)
            .because("a package's name says whether it is API (the feature's own) or internal (its role)");

    @ArchTest
    static final ArchRule featuresAreFreeOfCycles = slices().matching("dev.durability.(*)..")
            .namingSlices("feature $1")
            .should()
            .beFreeOfCycles();

    @ArchTest
    static final ArchRule packagesAreFreeOfCycles = slices().matching("dev.durability.(**)")
            .namingSlices("package $1")
            .should()
            .beFreeOfCycles();
}
