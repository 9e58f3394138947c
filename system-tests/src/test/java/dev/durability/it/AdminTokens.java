package dev.durability.it;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.UUID;

/**
 * Bearer tokens for the admin REST API, signed with the development key the test servers trust
 * (ear/src/dev/admin-jwt, the run command's too), or deliberately wrong in one respect.
 */
final class AdminTokens {
    static final String ISSUER = "https://durability.dev/admin-tokens";
    /** The test server's service is {@code orders}: its admin API's audience is its own name's. */
    static final String AUDIENCE = "orders.admin";

    static final String ADMIN_GROUP = "durability-admin";

    private AdminTokens() {}

    /** A valid admin token for this user, valid for an hour. */
    static String admin(String user) {
        return token(user, List.of(ADMIN_GROUP), ISSUER, Duration.ofHours(1), devKey());
    }

    /** A valid token of a user who is not an admin. */
    static String nonAdmin(String user) {
        return token(user, List.of("orders-client"), ISSUER, Duration.ofHours(1), devKey());
    }

    /** An admin token that expired ten minutes ago. */
    static String expired(String user) {
        return token(user, List.of(ADMIN_GROUP), ISSUER, Duration.ofMinutes(-10), devKey());
    }

    /** An admin token signed by a key the server does not trust. */
    static String signedByAnotherKey(String user) {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            return token(
                    user,
                    List.of(ADMIN_GROUP),
                    ISSUER,
                    Duration.ofHours(1),
                    generator.generateKeyPair().getPrivate());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** An admin token from an issuer the server does not accept. */
    static String fromAnotherIssuer(String user) {
        return token(user, List.of(ADMIN_GROUP), "https://attacker.example/", Duration.ofHours(1), devKey());
    }

    /** An admin token meant for another audience than this service's admin API, such as another service's. */
    static String forAudience(String user, String audience) {
        return token(user, List.of(ADMIN_GROUP), ISSUER, audience, Duration.ofHours(1), devKey());
    }

    private static String token(String user, List<String> groups, String issuer, Duration lifetime, PrivateKey key) {
        return token(user, groups, issuer, AUDIENCE, lifetime, key);
    }

    private static String token(
            String user, List<String> groups, String issuer, String audience, Duration lifetime, PrivateKey key) {
        Instant now = Instant.now();
        Instant issued = lifetime.isNegative() ? now.plus(lifetime).minus(Duration.ofHours(1)) : now;
        JWTClaimsSet claims = new JWTClaimsSet.Builder()
                .issuer(issuer)
                .audience(audience)
                .subject(user)
                .claim("upn", user)
                .claim("groups", groups)
                .issueTime(Date.from(issued))
                .expirationTime(Date.from(now.plus(lifetime)))
                .jwtID(UUID.randomUUID().toString())
                .build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.RS256), claims);
        try {
            jwt.sign(new RSASSASigner(key));
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
        return jwt.serialize();
    }

    private static PrivateKey devKey() {
        try {
            String pem = Files.readString(Path.of(System.getProperty("it.admin.jwt.key")));
            String base64 = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
            return KeyFactory.getInstance("RSA")
                    .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
