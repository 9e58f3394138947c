package dev.durability.admin.control;

import dev.durability.admin.entity.AdminAuditEntry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.util.logging.Logger;

/**
 * Writes every admin action, accepted or refused, as a log line and an {@code admin_audit} row, in the
 * transaction of the action itself: an action that rolls back leaves no row claiming it happened. Values are
 * logged as JSON strings, so a principal or parameter holding line breaks cannot forge log lines.
 */
@ApplicationScoped
@Transactional(Transactional.TxType.MANDATORY)
public class AdminAudit {
    private static final Logger LOG = Logger.getLogger(AdminAudit.class.getName());

    /** The actions {@code admin_audit.action} names. */
    public static final String REPLAY = "replay";

    public static final String REPLAY_PREVIEW = "replay-preview";
    public static final String REPLAY_CANCEL = "replay-cancel";
    public static final String REDRIVE = "redrive";
    public static final String KNOWN_BAD = "known-bad";

    /** The longest principal the audit keeps (a token's name is whatever its issuer wrote). */
    public static final int MAX_PRINCIPAL_LENGTH = 512;

    @PersistenceContext(unitName = "durability")
    EntityManager em;

    public void done(String principal, Channel channel, String action, JsonObject details) {
        record(principal, channel, action, "done", details);
    }

    /**
     * A step of a long-running action with its own outcome: a replay job's start ({@code started}) and its end
     * ({@code done}, {@code cancelled}, {@code failed}), written in the transaction that started or ended it.
     */
    public void outcome(String principal, Channel channel, String action, String outcome, JsonObject details) {
        record(principal, channel, action, outcome, details);
    }

    public void refused(String principal, Channel channel, String action, JsonObject details, String message) {
        record(
                principal,
                channel,
                action,
                "refused",
                Json.createObjectBuilder(details).add("refusal", message).build());
    }

    /** The principal as stored: at most {@link #MAX_PRINCIPAL_LENGTH} characters, never empty. */
    public static String bounded(String principal) {
        if (principal == null || principal.isEmpty()) {
            return "(unnamed)";
        }
        return storable(
                principal.length() <= MAX_PRINCIPAL_LENGTH ? principal : principal.substring(0, MAX_PRINCIPAL_LENGTH));
    }

    /**
     * Outside text as the audit can keep it: NUL is the one character PostgreSQL's text and jsonb refuse, so it
     * shows as U+FFFD.
     */
    public static String storable(String text) {
        return text.replace('\u0000', '\uFFFD');
    }

    private void record(String principal, Channel channel, String action, String outcome, JsonObject details) {
        LOG.info(() -> "admin " + action + " " + outcome + " by " + Json.createValue(bounded(principal)) + " ("
                + channel.column() + "): " + details);
        em.createNamedQuery(AdminAuditEntry.RECORD)
                .setParameter(1, bounded(principal))
                .setParameter(2, channel.column())
                .setParameter(3, action)
                .setParameter(4, outcome)
                .setParameter(5, details.toString())
                .executeUpdate();
    }
}
