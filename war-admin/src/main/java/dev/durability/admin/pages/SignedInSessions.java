package dev.durability.admin.pages;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.annotation.WebFilter;
import jakarta.servlet.annotation.WebListener;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;
import jakarta.servlet.http.HttpSessionEvent;
import jakarta.servlet.http.HttpSessionIdListener;
import jakarta.servlet.http.HttpSessionListener;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * The admin pages' sessions once an operator signed in (docs/decisions/0060-admin-sessions-and-transport.md):
 *
 * <ul>
 *   <li>A session gets a new id the first time a signed-in user uses it. The sign-in page issues a session to the
 *       anonymous browser, and the container's form login keeps it: an id that was planted or read before the
 *       sign-in must not become the signed-in operator's (session fixation).
 *   <li>A request without a sign-in that presents a signed-in session's id (a copied cookie, or one that outlived
 *       its single sign-on token) makes the server end that session and serve the sign-in page
 *       ({@code invalidateOnUnauthorizedSessionRequestException} in liberty-config/server.xml), where it used to
 *       answer 500 with a stack trace; the log gets one line, from here.
 * </ul>
 */
@WebFilter(urlPatterns = "/*")
@WebListener
public class SignedInSessions extends HttpFilter implements HttpSessionListener, HttpSessionIdListener {
    private static final Logger LOG = Logger.getLogger(SignedInSessions.class.getName());
    /** The user a session's current id was issued to. */
    private static final String ISSUED_TO = SignedInSessions.class.getName() + ".issued-to";
    /** Live signed-in sessions of this module: id to user. As many entries as signed-in sessions. */
    private static final Map<String, String> SIGNED_IN = new ConcurrentHashMap<>();

    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        String user = request.getRemoteUser();
        if (user == null) {
            noteSignedInSessionWithoutSignIn(request);
        } else {
            HttpSession session = request.getSession(false);
            if (session != null && !user.equals(session.getAttribute(ISSUED_TO))) {
                session.setAttribute(ISSUED_TO, user);
                // Moved to the new id by sessionIdChanged: within this request the server's session object may
                // still answer an earlier id.
                SIGNED_IN.put(session.getId(), user);
                request.changeSessionId();
            }
        }
        chain.doFilter(request, response);
    }

    /** Before anything touches the session: the server ends it once the request does. */
    private static void noteSignedInSessionWithoutSignIn(HttpServletRequest request) {
        String requested = request.getRequestedSessionId();
        String user = requested == null ? null : SIGNED_IN.remove(requested);
        if (user != null) {
            LOG.warning(() -> String.format(
                    "A request without a sign-in presented the session id of signed-in user %s (a copied cookie, or"
                            + " one that outlived its sign-in): the session is ended and the sign-in page shown",
                    user));
        }
    }

    @Override
    public void sessionIdChanged(HttpSessionEvent event, String oldSessionId) {
        String user = SIGNED_IN.remove(oldSessionId);
        if (user != null) {
            SIGNED_IN.put(event.getSession().getId(), user);
        }
    }

    @Override
    public void sessionDestroyed(HttpSessionEvent event) {
        SIGNED_IN.remove(event.getSession().getId());
    }
}
