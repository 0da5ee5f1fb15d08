package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reading pipelined requests' keys ahead: where it stops, and that a pipelined burst on a map large
 * enough to read ahead gets every reply it would get without.
 */
class ReadAheadTest {

    @TempDir
    Path dir;

    @Test
    void shouldReadAheadABatchOfWholeRequestsAndOnlyOnALargeMap() throws Exception {
        try (MapStore store = MapStore.open(dir, System::currentTimeMillis); Arena arena = Arena.ofConfined()) {
            ByteArrayOutputStream requests = new ByteArrayOutputStream();
            List<Integer> ends = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                requests.writeBytes(i == 5 ? "PING\r\n".getBytes(StandardCharsets.US_ASCII) : Wire.encode("GET", "k" + i));
                ends.add(requests.size());
            }
            byte[] partial = Wire.encode("SET", "k-partial", "v");
            requests.write(partial, 0, partial.length - 3);
            byte[] bytes = requests.toByteArray();
            MemorySegment b = arena.allocate(bytes.length);
            MemorySegment.copy(bytes, 0, b, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, bytes.length);
            ReadAhead ahead = new ReadAhead(1, () -> 1 << 20);

            assertEquals(bytes.length, ahead.run(store, 0, b, 0, bytes.length), "a small map: nothing to read ahead until more input");
            for (int i = 0; i < ReadAhead.MIN_KEYS; i++) {
                store.set(("k" + i).getBytes(StandardCharsets.US_ASCII), new byte[8], StoredValue.NO_EXPIRY);
            }
            assertEquals(bytes.length, ahead.run(store, 0, b, 0, bytes.length), "the map's size is looked at again only later");
            ahead = new ReadAhead(1, () -> 1 << 20);
            assertEquals(ends.get(31), ahead.run(store, 0, b, 0, bytes.length), "a batch of 32 requests, the inline one among them");
            assertEquals(ends.get(39), ahead.run(store, 0, b, ends.get(31), bytes.length), "the rest, up to the partial request");
            assertEquals(ends.get(39), ahead.run(store, 0, b, ends.get(39), bytes.length), "no whole request: where it started");
            assertEquals(ends.get(3), ahead.run(store, 0, b, ends.get(3), ends.get(3)), "no input");

            byte[] junk = "*2\r\n$3\r\nGET\r\nxx".getBytes(StandardCharsets.US_ASCII);
            MemorySegment bad = arena.allocate(bytes.length + junk.length);
            MemorySegment.copy(b, 0, bad, 0, ends.get(2));
            MemorySegment.copy(junk, 0, bad, java.lang.foreign.ValueLayout.JAVA_BYTE, ends.get(2), junk.length);
            assertEquals(ends.get(2), ahead.run(store, 0, bad, 0, ends.get(2) + junk.length), "stops before bytes that are not RESP");
            assertEquals(ReadAhead.MIN_KEYS, store.size(), "reading ahead changes nothing");
        }
    }

    @Test
    void aPipelinedBurstOnALargeMapGetsEveryReplyInOrder() throws Exception {
        try (ColossalServer server = TestServers.colossal(dir); Wire w = new Wire(server.port())) {
            int keys = (int) ReadAhead.MIN_KEYS + 20_000;
            Map<String, String> model = new HashMap<>();
            for (int from = 0; from < keys; from += 1000) {
                List<String> mset = new ArrayList<>(List.of("MSET"));
                for (int i = from; i < from + 1000; i++) {
                    mset.add("key" + i);
                    mset.add("value" + i);
                    model.put("key" + i, "value" + i);
                }
                assertEquals("+OK\r\n", w.call(mset.toArray(String[]::new)));
            }
            for (int i = 0; i <= ReadAhead.SIZE_CHECK_EVERY; i++) {
                assertEquals("+PONG\r\n", w.call("PING")); // a read each: the loop looks at the map's size again
            }
            Random random = new Random(5);
            ByteArrayOutputStream burst = new ByteArrayOutputStream();
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 5000; i++) {
                String k = "key" + random.nextInt(keys + 2000); // some absent
                switch (random.nextInt(6)) {
                    case 0 -> {
                        String v = "new" + i;
                        burst.writeBytes(Wire.encode("SET", k, v));
                        expected.add("+OK\r\n");
                        model.put(k, v);
                    }
                    case 1 -> {
                        burst.writeBytes(Wire.encode("DEL", k));
                        expected.add(":" + (model.remove(k) != null ? 1 : 0) + "\r\n");
                    }
                    case 2 -> {
                        burst.writeBytes("PING\r\n".getBytes(StandardCharsets.US_ASCII));
                        expected.add("+PONG\r\n");
                    }
                    default -> {
                        burst.writeBytes(Wire.encode("GET", k));
                        String v = model.get(k);
                        expected.add(v == null ? "$-1\r\n" : "$" + v.length() + "\r\n" + v + "\r\n");
                    }
                }
            }
            // Sent from a thread of its own: the server stops reading while its replies wait for us.
            Thread writer = Thread.ofPlatform().start(() -> {
                try {
                    w.send(burst.toByteArray());
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            for (int i = 0; i < expected.size(); i++) {
                assertEquals(expected.get(i), w.reply(), "reply " + i);
            }
            writer.join();
        }
    }
}
