package dev.durability.config.control;

/** A {@code durability.*} property with a value the application cannot run with. The message names the key. */
public class InvalidConfigurationException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String key;

    public InvalidConfigurationException(String key, Object value, String rule) {
        super("Invalid configuration: " + key + " = '" + value + "': " + rule);
        this.key = key;
    }

    public String key() {
        return key;
    }

    public static void check(boolean valid, String key, Object value, String rule) {
        if (!valid) {
            throw new InvalidConfigurationException(key, value, rule);
        }
    }

    public static void checkRange(String key, long value, long min, long max) {
        check(value >= min && value <= max, key, value, "must be between " + min + " and " + max);
    }
}
