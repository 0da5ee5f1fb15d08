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
 * LRANGE's replies of a list stored one element per entry (as servers before big lists' nodes
 * stored it) copied by the element map straight into the reply buffer: byte for byte what a bulk
 * reply of each element is, for elements of every header length, ones larger than the buffer, and
 * a damaged map's missing element told as damage, not answered as a short reply.
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
            StoredList list = StoredList.read(store, key);
            for (int[] span : new int[][] {{0, values.size()}, {3, 11}, {9, 10}, {5, 5}, {12, 13}}) {
                byte[] want = Reply.capture(2, r -> values.subList(span[0], span[1]).forEach(r::bulk));
                byte[] got = Reply.capture(2, r -> list.reply(span[0], span[1], r));
                assertArrayEquals(want, got, "elements [" + span[0] + ", " + span[1] + ")");
            }
        }
    }

    /**
     * @return elements of each size of {@code sizes}, each of its own letter, stored as the list
     *         under {@code key} the way a server before big lists' nodes stored a list too big to
     *         pack: a 32-byte header and one element-map entry per element
     */
    static List<byte[]> pushed(KeyValueStore store, byte[] key, int[] sizes) {
        List<byte[]> values = lettered(sizes);
        storeUnnoded(store, key, values);
        return values;
    }

    /** @return an element of each size of {@code sizes}, each of its own letter */
    static List<byte[]> lettered(int[] sizes) {
        List<byte[]> values = new ArrayList<>();
        for (int i = 0; i < sizes.length; i++) {
            byte[] v = new byte[sizes[i]];
            Arrays.fill(v, (byte) ('a' + i));
            values.add(v);
        }
        return values;
    }

    /** Stores {@code values} as the list under {@code key} with a 32-byte header and one element-map entry per element. */
    static void storeUnnoded(KeyValueStore store, byte[] key, List<byte[]> values) {
        ListElements elements = store.elements(true);
        long id = elements.newId(key);
        for (int i = 0; i < values.size(); i++) {
            elements.put(id, i, values.get(i));
        }
        store.set(key, ListLayout.header(id, 0, values.size(), 0), 0, ListLayout.HEADER_LENGTH, StoredValue.NO_EXPIRY, StoredValue.LIST);
    }

    /** @return the collection id of the list of a 32-byte header under {@code key} */
    static long idOf(KeyValueStore store, byte[] key) {
        KeyValueStore.Entry e = store.get(key);
        return ListLayout.getLong(e.array(), e.offset() + ListLayout.ID_OFFSET);
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
            storeUnnoded(store, key, List.of("a".getBytes(), "b".getBytes(), tooBigToPack()));
            StoredList list = StoredList.read(store, key);
            store.elements(false).remove(idOf(store, key), 1);
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
            storeUnnoded(store, key, List.of("a".getBytes(), "b".getBytes(), tooBigToPack()));
            store.elements(false).remove(idOf(store, key), 1);
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
