package dev.durability.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP relay between a server under test and a service it talks to (RabbitMQ, PostgreSQL) that breaks the
 * path in the two ways a network does:
 *
 * <ul>
 *   <li>{@link #freezeAfterForwarding}: stops forwarding towards the service after a given number of bytes,
 *       in the middle of a publish, as a broker that stopped reading would: what it already got is confirmed,
 *       the rest never arrives, so a publisher blocks writing or waits for confirms that never come;
 *   <li>{@link #partition}: nothing passes either way and new connections get no answer, as when a switch or a
 *       firewall drops every packet; no side is told. {@link #heal} lets what was held back through (TCP
 *       retransmits it once the path is back), {@link #resumeWithNewConnections} drops every connection
 *       instead (a NAT or firewall that lost its state): either way whoever gave up in between reconnects.
 * </ul>
 */
final class TcpProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final String targetHost;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    /** Set once the byte budget towards the service is spent; replies from the service still pass. */
    private volatile boolean frozen;
    /** Bytes still to forward towards the service before the relay freezes by itself. */
    private final AtomicLong freezeAfter = new AtomicLong(Long.MAX_VALUE);
    /** Nothing passes either way, and connections made meanwhile reach the service only once healed. */
    private volatile boolean partitioned;

    private volatile boolean closed;

    TcpProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "tcp-proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return listener.getLocalPort();
    }

    /** Freezes once this many more bytes went towards the service: a freeze in the middle of a publish. */
    void freezeAfterForwarding(long bytes) {
        freezeAfter.set(bytes);
    }

    /** Drops every relayed connection (and what it held back), then relays new ones again. */
    void resumeWithNewConnections() {
        sockets.forEach(TcpProxy::closeQuietly);
        sockets.clear();
        freezeAfter.set(Long.MAX_VALUE);
        frozen = false;
        partitioned = false;
    }

    /** Cuts the path both ways without telling either side: bytes and new connections are held back. */
    void partition() {
        partitioned = true;
    }

    /** Restores the path: what was held back passes on, in order, on the connections still open. */
    void heal() {
        partitioned = false;
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                sockets.add(client);
                Thread connector = new Thread(() -> connect(client), "tcp-proxy-connect");
                connector.setDaemon(true);
                connector.start();
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    /** Reaches the service for an accepted client, once no partition stands in between. */
    private void connect(Socket client) {
        try {
            holdWhilePartitioned(client);
            Socket upstream = new Socket(targetHost, targetPort);
            sockets.add(upstream);
            relay(client, upstream, true);
            relay(upstream, client, false);
        } catch (IOException | InterruptedException e) {
            closeQuietly(client);
        }
    }

    private void holdWhilePartitioned(Socket from) throws InterruptedException {
        while (partitioned && !from.isClosed()) {
            Thread.sleep(20);
        }
    }

    private void relay(Socket from, Socket to, boolean towardsService) {
        Thread thread = new Thread(
                () -> {
                    byte[] buffer = new byte[16384];
                    try (InputStream in = from.getInputStream();
                            OutputStream out = to.getOutputStream()) {
                        int n;
                        while ((n = in.read(buffer)) >= 0) {
                            if (towardsService && freezeAfter.addAndGet(-n) < 0) {
                                frozen = true;
                            }
                            while (towardsService && frozen && !from.isClosed()) {
                                Thread.sleep(20);
                            }
                            holdWhilePartitioned(from);
                            if (from.isClosed()) {
                                return;
                            }
                            out.write(buffer, 0, n);
                            out.flush();
                        }
                    } catch (IOException | InterruptedException e) {
                        // connection gone: close both ends below
                    } finally {
                        closeQuietly(from);
                        closeQuietly(to);
                    }
                },
                "tcp-proxy-relay");
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        sockets.forEach(TcpProxy::closeQuietly);
    }
}
