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
 * A TCP relay between a server under test and RabbitMQ that can stop forwarding towards the broker
 * after a given number of bytes, in the middle of a publish, as a broker that stopped reading would:
 * what it already got is confirmed, the rest never arrives, so a publisher blocks writing or waits for
 * confirms that never come. Used to hold a drain between its claim and its stamp.
 */
final class TcpProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final String targetHost;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    /** Set once the byte budget towards the broker is spent; replies from the broker still pass. */
    private volatile boolean frozen;
    /** Bytes still to forward towards the broker before the relay freezes by itself. */
    private final AtomicLong freezeAfter = new AtomicLong(Long.MAX_VALUE);

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

    /** Freezes once this many more bytes went towards the broker: a freeze in the middle of a publish. */
    void freezeAfterForwarding(long bytes) {
        freezeAfter.set(bytes);
    }

    /** Drops every relayed connection (and what it held back), then relays new ones again. */
    void resumeWithNewConnections() {
        sockets.forEach(TcpProxy::closeQuietly);
        sockets.clear();
        freezeAfter.set(Long.MAX_VALUE);
        frozen = false;
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket upstream = new Socket(targetHost, targetPort);
                sockets.add(client);
                sockets.add(upstream);
                relay(client, upstream, true);
                relay(upstream, client, false);
            } catch (IOException e) {
                if (!closed) {
                    continue;
                }
                return;
            }
        }
    }

    private void relay(Socket from, Socket to, boolean towardsBroker) {
        Thread thread = new Thread(
                () -> {
                    byte[] buffer = new byte[16384];
                    try (InputStream in = from.getInputStream();
                            OutputStream out = to.getOutputStream()) {
                        int n;
                        while ((n = in.read(buffer)) >= 0) {
                            if (towardsBroker && freezeAfter.addAndGet(-n) < 0) {
                                frozen = true;
                            }
                            while (towardsBroker && frozen && !from.isClosed()) {
                                Thread.sleep(20);
                            }
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
