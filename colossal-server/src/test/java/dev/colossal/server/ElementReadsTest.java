package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * LRANGE's replies copied by the element map straight into the reply buffer: byte for byte what
 * a bulk reply of each element is, for elements of every header length, ones larger than the
 * buffer, and a damaged map's missing element told as damage, not answered as a short reply.
 */
class ElementReadsTest {

    @TempDir
    Path dir;

    /** Sizes whose bulk headers differ from the last one's (the slot's guess) and outgrow the 256-byte buffer. */
    private static final int[] SIZES = {0, 1, 9, 10, 99, 100, 300, 70_000, 3, 1 << 20, 5, 0, 12_345};

    @Test
    void rangesOfElementsOfEverySizeReplyAsTheirBulks() throws Exception {
        try (Databases dbs = Databases.open(dir, 1, 0, System::currentTimeMillis)) {
            KeyValueStore store = dbs.opened(0);
            byte[] key = "l".getBytes();
            List<byte[]> values = pushed(store, key, SIZES);
            StoredList.readOrEmpty(store, key).push(true, "head".getBytes());
            values.addFirst("head".getBytes());
            StoredList list = StoredList.read(store, key);
            for (int[] span : new int[][] {{0, values.size()}, {3, 11}, {9, 10}, {5, 5}}) {
                byte[] want = Reply.capture(2, r -> values.subList(span[0], span[1]).forEach(r::bulk));
                byte[] got = Reply.capture(2, r -> list.reply(span[0], span[1], r));
                assertArrayEquals(want, got, "elements [" + span[0] + ", " + span[1] + ")");
            }
        }
    }

    /** @return elements of each size of {@code sizes}, each of its own letter, pushed to the tail of the list under {@code key} */
    static List<byte[]> pushed(KeyValueStore store, byte[] key, int[] sizes) {
        List<byte[]> values = new ArrayList<>();
        for (int i = 0; i < sizes.length; i++) {
            byte[] v = new byte[sizes[i]];
            Arrays.fill(v, (byte) ('a' + i));
            values.add(v);
        }
        StoredList.readOrEmpty(store, key).push(false, values.toArray(new byte[0][]), 0, values.size());
        return values;
    }

    /** @return an element that alone keeps its list out of the packed form: its elements are entries of the element map */
    static byte[] tooBigToPack() {
        byte[] v = new byte[ListLayout.PACKED_BYTES + 1];
        Arrays.fill(v, (byte) 'z');
        return v;
    }

    @Test
    void aMissingElementIsDamageNotAShortReply() throws Exception {
        try (Databases dbs = Databases.open(dir, 1, 0, System::currentTimeMillis)) {
            KeyValueStore store = dbs.opened(0);
            byte[] key = "l".getBytes();
            StoredList.readOrEmpty(store, key).push(false, new byte[][] {"a".getBytes(), "b".getBytes(), tooBigToPack()}, 0, 3);
            StoredList list = StoredList.read(store, key);
            store.elements(false).remove(list.id(), list.first() + 1);
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> Reply.capture(2, r -> list.reply(0, 3, r)));
            assertTrue(e.getMessage().contains("is missing"), e.getMessage());
        }
    }

    /**
     * Served, the same damage answers LRANGE with the error alone, not an array header the error
     * then cuts short: the connection's next reply is the next command's.
     */
    @Test
    void aServerAnswersAMissingElementWithTheErrorAloneAndStaysInStep() throws Exception {
        Path data = dir.resolve("served");
        try (Databases dbs = Databases.open(data, 16, 0, System::currentTimeMillis)) {
            KeyValueStore store = dbs.opened(0);
            byte[] key = "l".getBytes();
            StoredList.readOrEmpty(store, key).push(false, new byte[][] {"a".getBytes(), "b".getBytes(), tooBigToPack()}, 0, 3);
            StoredList list = StoredList.read(store, key);
            store.elements(false).remove(list.id(), list.first() + 1);
        }
        try (ColossalServer s = ColossalServer.start(ServerConfig.defaults().withDataDir(data).withPorts(0, -1));
             Wire w = new Wire(s.port())) {
            String reply = w.call("LRANGE", "l", "0", "-1");
            assertTrue(reply.startsWith("-ERR ") && reply.contains("is missing") && reply.indexOf("\r\n") == reply.length() - 2,
                    reply);
            assertTrue(w.call("PING").equals("+PONG\r\n"), "in step after the error");
            assertTrue(w.call("LINDEX", "l", "0").equals("$1\r\na\r\n"));
        }
    }
}
