package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.colossal.rdb.DumpPayload;
import dev.colossal.rdb.RdbFile;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replica's side of the protocol against a scripted master, byte for byte: the handshake, a
 * snapshot after keep-alive newlines, the offset REPLCONF GETACK is answered with, the PSYNC of a
 * link made again (the master's id and the offset after the last byte applied), and a master's
 * command on a key past its deadline, which the master still sees (its DEL follows).
 */
class MasterLinkProtocolTest {

    private static final String REPLID = "0123456789abcdef0123456789abcdef01234567";
    private static final long START = 1000;

    @TempDir
    Path dir;

    @Test
    void handshakeSnapshotAcksAndAPartialResync() throws Exception {
        try (ServerSocket fake = new ServerSocket(0); ColossalServer s = TestServers.colossal(dir);
                Wire client = new Wire(s.port())) {
            fake.setSoTimeout(10_000);
            client.call("REPLICAOF", "127.0.0.1", Integer.toString(fake.getLocalPort()));
            long offset;
            try (Socket link = fake.accept()) {
                link.setSoTimeout(10_000);
                MasterInput in = new MasterInput(link.getInputStream());
                OutputStream out = link.getOutputStream();
                handshake(in, out, "+PONG", s.port());
                expect(in, "PSYNC", "?", "-1");
                RdbFile rdb = new RdbFile(ServerContext.REDIS_VERSION, System.currentTimeMillis(), 0);
                rdb.database(0, 2, 1);
                rdb.key(bytes("gone"), DumpPayload.of(MemorySegment.ofArray(bytes("old")), DumpPayload.Form.DUMP), System.currentTimeMillis() - 10_000);
                rdb.key(bytes("live"), DumpPayload.of(MemorySegment.ofArray(bytes("here")), DumpPayload.Form.DUMP), -1);
                byte[] file = rdb.finish();
                out.write(("+FULLRESYNC " + REPLID + " " + START + "\r\n\n\n$" + file.length + "\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.write(file);
                byte[] select = Wire.encode("SELECT", "0");
                byte[] append = Wire.encode("APPEND", "gone", "X");
                byte[] ping = Wire.encode("PING");
                out.write(select);
                out.write(append);
                out.write(ping);
                out.write(Wire.encode("REPLCONF", "GETACK", "*"));
                out.flush();
                offset = START + select.length + append.length + ping.length;
                // the periodic ACKs may come first: the one GETACK asked for says every byte before it
                awaitAck(in, offset);
                offset += Wire.encode("REPLCONF", "GETACK", "*").length;
                assertEquals("$-1\r\n", client.call("GET", "gone"), "past its deadline for clients");
                assertEquals(":2\r\n", client.call("DBSIZE"));
                byte[] del = Wire.encode("DEL", "gone");
                out.write(del);
                out.flush();
                offset += del.length;
                TestServers.await(":1\r\n", 5000, () -> client.call("DBSIZE"));
                assertEquals("$4\r\nhere\r\n", client.call("GET", "live"));
            }
            // the master dropped the link: the replica asks to go on after its last byte
            try (Socket link = fake.accept()) {
                link.setSoTimeout(10_000);
                MasterInput in = new MasterInput(link.getInputStream());
                OutputStream out = link.getOutputStream();
                handshake(in, out, "-NOAUTH Authentication required.", s.port()); // goes on: AUTH is next, if set
                expect(in, "PSYNC", REPLID, Long.toString(offset + 1));
                String promoted = "f".repeat(40);
                out.write(("+CONTINUE " + promoted + "\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(Wire.encode("SET", "after", "1"));
                out.flush();
                assertEquals("$1\r\n1\r\n", TestServers.await("$1\r\n1\r\n", 5000, () -> client.call("GET", "after")));
                String info = client.call("INFO", "replication");
                assertEquals(Long.toString(offset + Wire.encode("SET", "after", "1").length),
                        info.split("slave_repl_offset:")[1].split("\r\n")[0], info);
            }
            assertEquals("+OK\r\n", client.call("REPLICAOF", "NO", "ONE"));
        }
    }

    /** What a replica sends before PSYNC (no masterauth set), answered as a master answers it. */
    private static void handshake(MasterInput in, OutputStream out, String pong, int replicaPort) throws IOException {
        expect(in, "PING");
        out.write((pong + "\r\n").getBytes(StandardCharsets.US_ASCII));
        expect(in, "REPLCONF", "listening-port", Integer.toString(replicaPort));
        out.write("+OK\r\n".getBytes(StandardCharsets.US_ASCII));
        expect(in, "REPLCONF", "capa", "eof", "capa", "psync2");
        out.write("+OK\r\n".getBytes(StandardCharsets.US_ASCII));
    }

    private static void awaitAck(MasterInput in, long offset) throws IOException {
        while (true) {
            byte[][] ack = in.command();
            assertEquals("REPLCONF ACK", text(ack[0]) + " " + text(ack[1]));
            long at = Long.parseLong(text(ack[2]));
            if (at == offset) {
                return;
            }
            assertEquals(true, at < offset, "acked " + at + ", past the " + offset + " sent");
        }
    }

    private static void expect(MasterInput in, String... command) throws IOException {
        byte[][] got = in.command();
        byte[][] want = new byte[command.length][];
        for (int i = 0; i < command.length; i++) {
            want[i] = bytes(command[i]);
        }
        assertArrayEquals(want, got, String.join(" ", command));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.US_ASCII);
    }
}
