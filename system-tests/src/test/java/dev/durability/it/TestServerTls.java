package dev.durability.it;

import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The clients' side of the test servers' HTTPS port, where the admin pages and API are served. Each test server
 * generates a self-signed certificate at its first start (the development profile's keystore,
 * ear/src/dev/liberty), which nothing signed and no name check would pass; these clients only ever reach servers
 * on this machine, so they accept any certificate, as a browser told to accept insecure certificates does.
 */
final class TestServerTls {
    private static final SSLContext CONTEXT = acceptingAnyCertificate();

    private TestServerTls() {}

    static SSLContext context() {
        return CONTEXT;
    }

    private static SSLContext acceptingAnyCertificate() {
        // An extended trust manager: the platform checks the host name inside its own trust manager only, so one
        // that accepts everything also accepts the generated certificate's name.
        TrustManager acceptAny = new X509ExtendedTrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {}

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {}

            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {}

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {}

            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        };
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {acceptAny}, new SecureRandom());
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
