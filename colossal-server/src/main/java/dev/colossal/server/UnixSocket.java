package dev.colossal.server;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;

/**
 * The Unix domain socket RESP is also served on ({@code unixsocket}, {@code unixsocketperm}), as
 * redis-server serves it: clients on the same machine (redis-rs, redis-py, Jedis with a
 * {@code unix://} URL) skip TCP. Its clients show {@code addr=PATH:0} and the {@code U} flag.
 *
 * @param path the socket file
 * @param perm its mode, as the octal digits of {@code chmod} read (0: left to the umask, Redis's default)
 */
public record UnixSocket(Path path, int perm) {

    /**
     * Checks the settings.
     *
     * @throws IllegalArgumentException naming the setting: a mode beyond 0777
     */
    public UnixSocket {
        if (perm < 0 || perm > 0777) {
            throw new IllegalArgumentException("--unixsocketperm=" + Integer.toOctalString(perm)
                    + " must be an octal mode such as 700 or 770");
        }
    }

    /**
     * @param octal the mode as redis.conf writes it (700)
     * @throws IllegalArgumentException if it is not octal digits
     */
    public static int parsePerm(String octal) {
        try {
            return Integer.parseInt(octal, 8);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--unixsocketperm=" + octal + " must be an octal mode such as 700 or 770");
        }
    }

    /** @return what CLIENT LIST shows as addr and laddr of its clients, as Redis shows them */
    String clientAddress() {
        return path + ":0";
    }

    /**
     * Binds the socket. A file left at the path by a server that died is removed first, as Redis
     * removes it: otherwise no server could bind there again until someone deleted it.
     */
    ServerSocketChannel listen() throws ListenException {
        ServerSocketChannel l = null;
        try {
            Files.deleteIfExists(path);
            l = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            l.bind(UnixDomainSocketAddress.of(path), 1024);
            if (perm != 0) {
                Files.setPosixFilePermissions(path, permissions(perm));
            }
            return l;
        } catch (IOException e) {
            if (l != null) {
                try {
                    l.close();
                } catch (IOException ignored) {
                    // the bind's failure is the one to report
                }
            }
            throw new ListenException(path, e);
        }
    }

    /** Removes the socket file once the server no longer listens, as Redis does at shutdown. */
    void remove() {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            System.err.println("colossal: could not remove the Unix socket " + path + ": " + e);
        }
    }

    /** @return {@code mode}'s nine permission bits as the set NIO sets */
    static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> s = EnumSet.noneOf(PosixFilePermission.class);
        PosixFilePermission[] bits = PosixFilePermission.values(); // OWNER_READ first: bit 8 down to bit 0
        for (int i = 0; i < bits.length; i++) {
            if ((mode & (0400 >> i)) != 0) {
                s.add(bits[i]);
            }
        }
        return s;
    }
}
