package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A big value passes through and leaves no big buffer behind: the memory a 64 MiB SET, GET, PUT
 * or HTTP GET needed is given back when the request is done, not left for a garbage collection
 * that a server allocating nothing on its hot paths may not run for hours.
 */
class ServerMemoryTest {

    private static final long MIB = 1 << 20;
    private static final long BIG = 64 * MIB;

    @TempDir
    Path dir;

    /** Native memory of direct buffers not yet given back (arenas are not counted). */
    private static long nativeInUse() {
        return ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(p -> p.getName().equals("direct")).mapToLong(BufferPoolMXBean::getMemoryUsed).sum();
    }

    /** Heap bytes allocated by every thread so far (carrier threads count their virtual threads'). */
    private static long heapAllocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getTotalThreadAllocatedBytes();
    }

    @Test
    void aBigSetAndGetGiveTheirNativeBuffersBack() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Wire w = new Wire(s.port())) {
            assertEquals("+PONG\r\n", w.call("PING"));
            long base = nativeInUse();
            w.sendWithLongLast(BIG, (byte) 'v', "SET", "big");
            assertEquals("+OK\r\n", w.reply());
            assertTrue(nativeInUse() - base < 4 * MIB, "after SET: " + (nativeInUse() - base) / MIB + " MiB more in use");
            for (int i = 0; i < 3; i++) {
                assertEquals(BIG, send(w, "GET", "big").skipBulk());
            }
            // It grew by 64 MiB with every GET until a GC (the trial: 3.8 GB after a few).
            assertTrue(nativeInUse() - base < 4 * MIB, "after 3 GETs: " + (nativeInUse() - base) / MIB + " MiB more in use");
            assertEquals("$1\r\nv\r\n", w.call("GETRANGE", "big", "0", "0"), "the connection goes on");
        }
    }

    /**
     * Connections that come and go leave no buffers behind. The trial: 8 rounds of 5,000 short-lived
     * connections took the server from 255 to 842 MB until a GC, 16 KiB of reply buffer each. A
     * server of its own, so that the JVM's native memory tracking can count its connection buffers
     * (arenas are not in the direct buffer pool).
     */
    @Test
    void closedConnectionsGiveTheirBuffersBack() throws Exception {
        int port = TestServers.freePort();
        Path log = dir.resolve("server.log");
        String java = ProcessHandle.current().info().command().orElseThrow();
        Process server = new ProcessBuilder(java, "-XX:NativeMemoryTracking=summary", "-cp",
                System.getProperty("java.class.path"), "dev.colossal.cli.Main", "serve", "--port", Integer.toString(port),
                "--http-port", "-1", "--data", dir.resolve("data").toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            TestServers.awaitPong(port, server, log);
            int n = 300;
            try (Wire stays = new Wire(port)) {
                assertEquals("+PONG\r\n", stays.call("PING"));
                long base = unsafeMalloced(server);
                for (int round = 0; round < 3; round++) {
                    Wire[] open = new Wire[n];
                    for (int i = 0; i < n; i++) {
                        open[i] = new Wire(port);
                        assertEquals("+PONG\r\n", open[i].call("PING"));
                    }
                    // Input and reply buffers, 4 KiB each: the measure sees them while they are open.
                    long inUse = unsafeMalloced(server) - base;
                    assertTrue(inUse >= n * 8L * 1024, "in use with " + n + " open: " + inUse);
                    for (Wire w : open) {
                        w.close();
                    }
                    long deadline = System.nanoTime() + 15_000_000_000L;
                    while ((inUse = unsafeMalloced(server) - base) > MIB && System.nanoTime() < deadline) {
                        Thread.sleep(100);
                    }
                    assertTrue(inUse <= MIB, "round " + round + ": " + inUse / 1024 + " KiB still in use after " + n
                            + " connections closed");
                }
                assertEquals("+PONG\r\n", stays.call("PING"), "the connection that stayed goes on");
            }
        } finally {
            server.destroy();
            server.waitFor(20, TimeUnit.SECONDS);
        }
    }

    /**
     * @return the bytes {@code server} holds from direct buffers and arenas, which the JVM's native
     *     memory tracking counts under Other
     */
    private static long unsafeMalloced(Process server) throws Exception {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Process p = new ProcessBuilder(jcmd.toString(), Long.toString(server.pid()), "VM.native_memory", "summary")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "jcmd did not finish");
        Matcher m = Pattern.compile("- +Other \\(reserved=\\d+KB, committed=(\\d+)KB\\)").matcher(out);
        assertTrue(m.find(), "no Other in jcmd's native memory summary:\n" + out);
        return Long.parseLong(m.group(1)) * 1024;
    }

    private static Wire send(Wire w, String... args) throws IOException {
        w.send(Wire.encode(args));
        return w;
    }

    @Test
    void httpBodiesGoBetweenSocketAndMapWithoutHeapCopies() throws Exception {
        try (ColossalServer s = ColossalServer.start(ServerConfig.defaults().withDataDir(dir).withPorts(0, 0))) {
            assertEquals(204, put(s.httpPort(), "warm", 1024));
            assertEquals(1024, get(s.httpPort(), "warm"));
            long base = nativeInUse();
            long before = heapAllocated();
            assertEquals(204, put(s.httpPort(), "big", BIG));
            assertEquals(BIG, get(s.httpPort(), "big"));
            long allocated = heapAllocated() - before;
            // It copied the value into heap arrays three times on PUT and twice on GET.
            assertTrue(allocated < BIG / 4, "a 64 MiB PUT and GET allocated " + allocated / MIB + " MiB of heap");
            assertTrue(nativeInUse() - base < 4 * MIB, "native buffers: " + (nativeInUse() - base) / MIB + " MiB more in use");
        }
    }

    @Test
    void aPutLongerThanTheLimitIsRefusedFromItsContentLength() throws Exception {
        try (ColossalServer s = ColossalServer.start(ServerConfig.defaults().withDataDir(dir).withPorts(0, 0));
             Socket c = new Socket("127.0.0.1", s.httpPort())) {
            c.setSoTimeout(10_000);
            // 600 MB announced, none sent: the answer must come from the header alone.
            c.getOutputStream().write(("PUT /v1/keys/k HTTP/1.1\r\nHost: x\r\nContent-Length: 600000000\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            BufferedReader r = new BufferedReader(new InputStreamReader(c.getInputStream(), StandardCharsets.ISO_8859_1));
            assertEquals("HTTP/1.1 413 Request Entity Too Large", r.readLine());
            String line;
            int length = -1;
            while (!(line = r.readLine()).isEmpty()) {
                if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                    length = Integer.parseInt(line.substring(15).trim());
                }
            }
            char[] body = new char[length];
            assertEquals(length, r.read(body));
            assertEquals("{\"error\":\"value of 600000000 bytes is longer than 536870912, the longest string this server"
                    + " stores\"}", new String(body));
        }
    }

    /** PUTs {@code length} bytes over a raw socket; returns the status. */
    private static int put(int port, String key, long length) throws IOException {
        try (Socket c = new Socket("127.0.0.1", port)) {
            OutputStream out = c.getOutputStream();
            out.write(("PUT /v1/keys/" + key + " HTTP/1.1\r\nHost: x\r\nContent-Length: " + length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            byte[] piece = new byte[1 << 16];
            for (long left = length; left > 0; left -= piece.length) {
                out.write(piece, 0, (int) Math.min(piece.length, left));
            }
            out.flush();
            String status = readHead(c.getInputStream())[0];
            return Integer.parseInt(status.split(" ")[1]);
        }
    }

    /** GETs a key over a raw socket, throwing the body away; returns its length. */
    private static long get(int port, String key) throws IOException {
        try (Socket c = new Socket("127.0.0.1", port)) {
            c.getOutputStream().write(("GET /v1/keys/" + key + " HTTP/1.1\r\nHost: x\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            InputStream in = c.getInputStream();
            String[] head = readHead(in);
            long length = -1;
            for (String h : head) {
                if (h.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                    length = Long.parseLong(h.substring(15).trim());
                }
            }
            in.skipNBytes(length);
            return length;
        }
    }

    private static String[] readHead(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        while (!sb.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("closed after: " + sb);
            }
            sb.append((char) b);
        }
        return sb.toString().split("\r\n");
    }
}
