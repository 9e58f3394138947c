package dev.durability.admin.pages;

import dev.durability.admin.boundary.PipelineOverview;
import dev.durability.admin.boundary.Replays;
import dev.durability.admin.control.AdminActionRefused;
import dev.durability.admin.control.Channel;
import dev.durability.admin.control.ReplayOutcome;
import dev.durability.admin.control.ReplayRequest;
import dev.durability.admin.entity.ReplayJobStatus;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.io.Serializable;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * The replay page: a preview (a dry run) first, then a confirm that starts a job for exactly the previewed window
 * and scope, whatever the form fields hold by then (the confirm button says what it will replay); below, the recent
 * jobs with their progress, a running one with its cancel button (docs/admin.md).
 */
@Named
@ViewScoped
public class ReplayPage implements Serializable {
    private static final long serialVersionUID = 1L;

    @Inject
    Replays replays;

    @Inject
    PipelineOverview overview;

    private String from;
    private String to;
    private String eventType;
    private String scope = ReplayRequest.Scope.ALL.parameter();
    private ReplayOutcome preview;
    private ReplayOutcome started;
    private List<String> eventTypes;
    private List<ReplayJobStatus> jobs;

    public ReplayPage() {
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.MINUTES);
        to = ReplayRequest.rfc3339(now.plusMinutes(1));
        from = ReplayRequest.rfc3339(now.minusHours(1));
    }

    public void preview() {
        started = null;
        preview = null;
        try {
            preview = replays.replay(from, to, eventType, scope, "true", Channel.FORM);
        } catch (AdminActionRefused e) {
            Messages.error(e.getMessage());
        }
    }

    public void confirm() {
        if (preview == null) {
            Messages.error("preview the replay first");
            return;
        }
        ReplayRequest request = preview.request();
        try {
            started = replays.replay(
                    ReplayRequest.rfc3339(request.from()),
                    ReplayRequest.rfc3339(request.to()),
                    request.eventType(),
                    request.scope().parameter(),
                    "false",
                    Channel.FORM);
            Messages.info(
                    "Replay job " + started.job().id() + " started: " + started.restageable() + " events to re-stage.");
        } catch (AdminActionRefused e) {
            Messages.error(e.getMessage());
        }
        preview = null;
        jobs = null;
    }

    public void cancel() {
        preview = null;
    }

    /** Asks a running job to stop after its current slice. */
    public void cancelJob(String id) {
        try {
            ReplayJobStatus job = replays.cancel(id, Channel.FORM);
            Messages.info("Replay job " + job.id() + " stops after its current slice.");
        } catch (AdminActionRefused e) {
            Messages.error(e.getMessage());
        }
        jobs = null;
    }

    /** Read afresh once per request: the jobs' progress as of this page. */
    public List<ReplayJobStatus> getJobs() {
        if (jobs == null) {
            jobs = replays.recentJobs();
        }
        return jobs;
    }

    /** Drops the jobs read for an earlier request of this view, so a refresh shows their progress now. */
    public void refresh() {
        jobs = null;
    }

    /** Read once per view: the page's suggestions, not a live list. */
    public List<String> getEventTypes() {
        if (eventTypes == null) {
            eventTypes = List.copyOf(overview.recentEventTypes());
        }
        return eventTypes;
    }

    public String getFrom() {
        return from;
    }

    public void setFrom(String from) {
        this.from = from;
    }

    public String getTo() {
        return to;
    }

    public void setTo(String to) {
        this.to = to;
    }

    public String getEventType() {
        return eventType;
    }

    public void setEventType(String eventType) {
        this.eventType = eventType;
    }

    public String getScope() {
        return scope;
    }

    public void setScope(String scope) {
        this.scope = scope;
    }

    public ReplayOutcome getPreview() {
        return preview;
    }

    public ReplayOutcome getStarted() {
        return started;
    }
}
