package dev.durability.admin.pages;

import jakarta.faces.application.FacesMessage;
import jakarta.faces.context.FacesContext;

/** The pages' feedback: a message for the whole page, shown by its {@code h:messages}. */
final class Messages {
    private Messages() {}

    static void info(String text) {
        FacesContext.getCurrentInstance().addMessage(null, new FacesMessage(FacesMessage.SEVERITY_INFO, text, null));
    }

    static void error(String text) {
        FacesContext.getCurrentInstance().addMessage(null, new FacesMessage(FacesMessage.SEVERITY_ERROR, text, null));
    }
}
