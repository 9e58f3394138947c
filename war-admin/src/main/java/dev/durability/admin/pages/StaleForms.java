package dev.durability.admin.pages;

import jakarta.faces.FacesException;
import jakarta.faces.context.ExceptionHandler;
import jakarta.faces.context.ExceptionHandlerFactory;
import jakarta.faces.context.ExceptionHandlerWrapper;
import jakarta.faces.context.ExternalContext;
import jakarta.faces.context.FacesContext;
import jakarta.faces.event.ExceptionQueuedEvent;
import jakarta.faces.event.ExceptionQueuedEventContext;
import jakarta.faces.event.PhaseId;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.logging.Logger;

/**
 * A form whose view state cannot be restored (its session ended, or the view state is forged or garbled) is
 * expected hostile or stale input, not a server error: the browser is sent to the expired-form page and the log
 * gets one line, instead of a 500 with a stack trace and an FFDC incident per attempt. Every other failure keeps
 * the container's handling (error.html). docs/admin.md.
 */
public class StaleForms extends ExceptionHandlerFactory {
    private static final Logger LOG = Logger.getLogger(StaleForms.class.getName());

    public StaleForms(ExceptionHandlerFactory wrapped) {
        super(wrapped);
    }

    @Override
    public ExceptionHandler getExceptionHandler() {
        return new Handler(getWrapped().getExceptionHandler());
    }

    private static final class Handler extends ExceptionHandlerWrapper {
        Handler(ExceptionHandler wrapped) {
            super(wrapped);
        }

        @Override
        public void handle() throws FacesException {
            Iterator<ExceptionQueuedEvent> events =
                    getUnhandledExceptionQueuedEvents().iterator();
            while (events.hasNext()) {
                ExceptionQueuedEventContext queued = events.next().getContext();
                // Restoring the view is where a form's view state is read: nothing of the form has acted yet.
                if (queued.getPhaseId() == PhaseId.RESTORE_VIEW) {
                    events.remove();
                    refuse(queued.getContext(), queued.getException());
                    return;
                }
            }
            getWrapped().handle();
        }

        private static void refuse(FacesContext context, Throwable cause) {
            ExternalContext external = context.getExternalContext();
            LOG.warning(() -> String.format(
                    "Refused a form whose view state could not be restored (stale or not issued by these pages):"
                            + " %s, %s; nothing was changed",
                    printable(external.getRequestServletPath()),
                    rootOf(cause).getClass().getSimpleName()));
            try {
                external.redirect(external.getRequestContextPath() + "/expired.xhtml");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            context.responseComplete();
        }

        private static Throwable rootOf(Throwable failure) {
            Throwable root = failure;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            return root;
        }

        /** The path as the client sent it, without anything that could start a new log line. */
        private static String printable(String path) {
            String value = path == null ? "" : path;
            return value.length() > 200
                    ? value.substring(0, 200).replaceAll("\\p{Cntrl}", "?") + "..."
                    : value.replaceAll("\\p{Cntrl}", "?");
        }
    }
}
