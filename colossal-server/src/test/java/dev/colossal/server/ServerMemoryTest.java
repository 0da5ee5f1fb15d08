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

    /** Native memory of direct buffers and arenas not yet given back (the JDK counts both). */
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
