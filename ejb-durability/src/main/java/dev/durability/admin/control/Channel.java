package dev.durability.admin.control;

/** How an admin signed in: the pages' form login, or a bearer token on the REST API. Stored in the audit. */
public enum Channel {
    FORM("form"),
    BEARER("bearer");

    private final String column;

    Channel(String column) {
        this.column = column;
    }

    /** The channel a stored value names. */
    public static Channel of(String column) {
        for (Channel channel : values()) {
            if (channel.column.equals(column)) {
                return channel;
            }
        }
        throw new IllegalArgumentException("no channel " + column);
    }

    /** The value of {@code admin_audit.channel}. */
    public String column() {
        return column;
    }
}
