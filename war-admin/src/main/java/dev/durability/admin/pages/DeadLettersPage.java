package dev.durability.admin.pages;

import dev.durability.admin.boundary.DeadLetterTriage;
import dev.durability.admin.control.AdminActionRefused;
import dev.durability.admin.control.Channel;
import dev.durability.admin.control.RedriveOutcome;
import dev.durability.deadletter.entity.DeadLetterView;
import jakarta.annotation.PostConstruct;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.io.Serializable;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The dead-letter list with its filters, and the redrive and known-bad actions on each row. */
@Named
@ViewScoped
public class DeadLettersPage implements Serializable {
    private static final long serialVersionUID = 1L;
    static final int LISTED = 100;

    @Inject
    DeadLetterTriage triage;

    private String eventType;
    private String queue;
    private String status = "untriaged";
    private final Map<Long, String> notes = new HashMap<>();
    // Kept with the view, so a row's button acts on the dead letter the operator saw, not on whatever a fresh
    // query puts at that row now.
    private List<DeadLetterView> rows;

    @PostConstruct
    void load() {
        filter();
    }

    public void filter() {
        try {
            rows = List.copyOf(triage.list(eventType, queue, status, LISTED));
        } catch (AdminActionRefused e) {
            rows = List.of();
            Messages.error(e.getMessage());
        }
    }

    public void redrive(long id) {
        try {
            RedriveOutcome outcome = triage.redrive(id, Channel.FORM);
            Messages.info(
                    outcome.restaged()
                            ? "Dead letter " + id + " redriven: event " + outcome.envelopeId()
                                    + " re-staged (publication " + outcome.publication() + ")."
                            : "Dead letter " + id + ": event " + outcome.envelopeId()
                                    + " is still pending in the outbox; it will be published.");
        } catch (AdminActionRefused e) {
            Messages.error(e.getMessage());
        }
        filter();
    }

    public void markKnownBad(long id) {
        try {
            triage.markKnownBad(id, notes.get(id), Channel.FORM);
            notes.remove(id);
            Messages.info("Dead letter " + id + " marked known-bad.");
        } catch (AdminActionRefused e) {
            Messages.error(e.getMessage());
        }
        filter();
    }

    public List<DeadLetterView> getRows() {
        if (rows == null) {
            filter();
        }
        return rows;
    }

    public List<String> getStatuses() {
        return DeadLetterTriage.STATUSES;
    }

    public Map<Long, String> getNotes() {
        return notes;
    }

    public String getEventType() {
        return eventType;
    }

    public void setEventType(String eventType) {
        this.eventType = eventType;
    }

    public String getQueue() {
        return queue;
    }

    public void setQueue(String queue) {
        this.queue = queue;
    }

    public String getStatus() {
        return status;
    }

    public void setStatus(String status) {
        this.status = status;
    }
}
