package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random and mutated frames: at least 100,000 of them, across many connections. The server must
 * stay up, answer PING afterwards, hold no connection open and its heap must stay bounded.
 */
class FuzzTest {

    private static final String[] COMMANDS = {"SET", "GET", "DEL", "INCR", "APPEND", "GETRANGE", "SETRANGE",
        "EXPIRE", "TTL", "MSET", "MGET", "SCAN", "KEYS", "HELLO", "CLIENT", "COMMAND", "CONFIG", "PING", "ECHO",
        "GETEX", "SET", "INCRBYFLOAT", "RENAME", "EXISTS", "TYPE", "QUIT", "AUTH", "SELECT", "INFO", "TIME"};
    private static final String[] WORDS = {"k", "v", "EX", "PX", "NX", "XX", "GET", "KEEPTTL", "10", "-1", "0",
        "9223372036854775807", "abc", "*", "3", "1.5", "SETNAME", "GET", "MATCH", "COUNT", "2", "", "\r\n"};

    @TempDir
    Path dir;

    @Test
    void aHundredThousandRandomAndMutatedFramesLeaveTheServerAnswering() throws Exception {
        Random rnd = new Random(0xC0FFEEL);
        int frames = 0;
        try (ColossalServer server = TestServers.colossal(dir)) {
            Runtime rt = Runtime.getRuntime();
            while (frames < 100_000) {
                ByteArrayOutputStream batch = new ByteArrayOutputStream();
                int n = 5 + rnd.nextInt(60);
                for (int i = 0; i < n; i++) {
                    batch.writeBytes(frame(rnd));
                }
                frames += n;
                try (Socket s = new Socket("127.0.0.1", server.port())) {
                    s.setSoTimeout(10_000);
                    Thread drain = Thread.ofPlatform().start(() -> drain(s));
                    try {
                        s.getOutputStream().write(batch.toByteArray());
                        s.shutdownOutput();
                    } catch (IOException closedByServer) {
                        // a protocol error closes the connection: expected for most batches
                    }
                    drain.join(15_000);
                    assertTrue(!drain.isAlive(), "server answered or closed within 15 s");
                }
            }
            try (Wire w = new Wire(server.port())) {
                assertEquals("+PONG\r\n", w.call("PING"));
                w.call("FLUSHDB");
            }
            System.gc();
            assertTrue(rt.totalMemory() - rt.freeMemory() < 512L * 1024 * 1024, "heap stays bounded");
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (Long.parseLong(infoField(server.port(), "connected_clients")) > 1 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals("1", infoField(server.port(), "connected_clients"), "no connection leaks");
        }
        assertTrue(frames >= 100_000);
    }

    private static String infoField(int port, String name) throws IOException {
        try (Wire w = new Wire(port)) {
            for (String l : w.call("INFO", "clients").split("\r\n")) {
                if (l.startsWith(name + ":")) {
                    return l.substring(name.length() + 1);
                }
            }
        }
        return "?";
    }

    private static void drain(Socket s) {
        try (InputStream in = s.getInputStream()) {
            byte[] b = new byte[65536];
            while (in.read(b) >= 0) {
                // discard replies
            }
        } catch (IOException ignored) {
            // reset by the server after a protocol error
        }
    }

    private static byte[] frame(Random rnd) {
        int argc = 1 + rnd.nextInt(5);
        String[] args = new String[argc];
        args[0] = COMMANDS[rnd.nextInt(COMMANDS.length)];
        for (int i = 1; i < argc; i++) {
            args[i] = rnd.nextInt(4) == 0 ? Long.toString(rnd.nextLong()) : WORDS[rnd.nextInt(WORDS.length)];
        }
        if (args[0].equals("QUIT")) {
            args[0] = "PING";
        }
        byte[] f = Wire.encode(args);
        switch (rnd.nextInt(25)) {
            case 0 -> { // flip bytes
                for (int i = 0, m = 1 + rnd.nextInt(3); i < m; i++) {
                    f[rnd.nextInt(f.length)] = (byte) rnd.nextInt(256);
                }
            }
            case 1 -> { // truncate
                f = java.util.Arrays.copyOf(f, rnd.nextInt(f.length));
            }
            case 2 -> { // pure noise
                f = new byte[rnd.nextInt(64)];
                rnd.nextBytes(f);
            }
            case 3 -> { // inline form
                f = (String.join(" ", args) + "\r\n").getBytes();
            }
            default -> { }
        }
        return f;
    }
}
