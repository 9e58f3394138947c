package dev.durability.config.control;

/**
 * A feature's typed configuration, checked at start: {@code ConfigurationCheck} finds every bean of this
 * type and calls {@link #validate()} before the library's other start-up beans run, so the feature owns
 * its rules and this package names no feature.
 */
public interface FeatureConfig {

    /** Throws {@link InvalidConfigurationException} naming the first key whose value breaks a rule. */
    void validate();
}
