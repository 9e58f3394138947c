package dev.durability.admin.pages;

import jakarta.enterprise.context.RequestScoped;
import jakarta.faces.context.ExternalContext;
import jakarta.faces.context.FacesContext;
import jakarta.inject.Named;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;

/** Signs the operator out: ends the container login (and its single sign-on cookie) and the session. */
@Named
@RequestScoped
public class SignOut {

    public void signOut() throws ServletException, IOException {
        ExternalContext external = FacesContext.getCurrentInstance().getExternalContext();
        ((HttpServletRequest) external.getRequest()).logout();
        external.invalidateSession();
        external.redirect(external.getRequestContextPath() + "/");
    }

    public String getUser() {
        var principal = FacesContext.getCurrentInstance().getExternalContext().getUserPrincipal();
        return principal == null ? "" : principal.getName();
    }
}
