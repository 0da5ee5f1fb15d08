package dev.colossal.server;

import static dev.colossal.server.ListsTest.eventually;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * Chunked strings ({@link BigStringLayout}) at the default chunk size: a log grown by APPEND and a
 * bitmap grown by SETBIT are kept in chunks; the collector keeps the chunks a header holds and frees
 * those past its length, of another id, or of a removed string; the key commands (TYPE, OBJECT
 * ENCODING, MEMORY USAGE, EXPIRE, RENAME, COPY, DUMP/RESTORE) see one string.
 */
class BigStringsTest {

    @TempDir
    Path dir;

    @Test
    void theCollectorKeepsTheChunksAHeaderHoldsAndFreesTheRest() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            StringBuilder want = new StringBuilder();
            for (int i = 0; i < 2000; i++) {
                String rec = String.format("%099d\n", i);
                want.append(rec);
                assertEquals(want.length(), j.append("log", rec));
            }
            MapStore m = s.context().dbs.opened(0);
            KeyValueStore.Entry h = m.raw(bytes("log"));
            assertTrue(h.chunked(), "200 KB appended is chunked");
            long id = BigStringLayout.get(h, BigStringLayout.ID_OFFSET);
            long chunks = BigStringLayout.chunks(want.length(), BigStringLayout.get(h, BigStringLayout.CHUNK_OFFSET));
            ListElements e = m.elements(false);
            assertEquals(chunks + 1, e.size(), "one entry a chunk, and the root");
            // what an APPEND killed before its header write leaves: a chunk past the end; and a stray id
            e.put(id, chunks + 3, bytes("garbage"));
            long stray = e.newId(bytes("log"));
            e.put(stray, 0, bytes("stray"));
            s.context().collector.walk(m, e);
            assertEquals(chunks + 1, e.size(), "the collector frees what no header holds, and keeps every live chunk");
            assertEquals(want.toString(), j.get("log"));
            assertEquals(want.length(), j.strlen("log"));

            j.del("log");
            eventually(() -> e.size() == 0, "DEL to free the chunks: " + e.size() + " left");
        }
    }

    @Test
    void aBitmapIsChunkedSparselyAndReadsRightThroughEveryCommand() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertFalse(j.setbit("bm", 10_000_000, true));
            MapStore m = s.context().dbs.opened(0);
            assertTrue(m.raw(bytes("bm")).chunked(), "a 1.25 MB bitmap is chunked");
            assertEquals(2, m.elements(false).size(), "zero chunks are not stored: the last one, and the root");
            assertTrue(j.getbit("bm", 10_000_000));
            assertFalse(j.getbit("bm", 9_999_999));
            assertFalse(j.setbit("bm", 77, true));
            assertTrue(j.setbit("bm", 77, true));
            assertEquals(2, j.bitcount("bm"));
            assertEquals(1, j.bitcount("bm", 0, 100));
            assertEquals(77, j.bitpos("bm", true));
            assertEquals(1_250_001, j.strlen("bm"));
            assertEquals("string", j.type("bm"));
            assertEquals("raw", j.objectEncoding("bm"));
            assertTrue(j.memoryUsage("bm") > 16 * 1024, "MEMORY USAGE counts the chunks: " + j.memoryUsage("bm"));
            byte[] whole = j.get(bytes("bm"));
            assertEquals(1_250_001, whole.length);
            assertEquals(0x04, whole[9] & 0xFF);
            assertEquals(0x80, whole[1_250_000] & 0xFF);

            assertEquals(1, j.expire("bm", 1000));
            assertTrue(m.raw(bytes("bm")).chunked(), "EXPIRE rewrites the header only");
            assertTrue(j.ttl("bm") > 990);
            assertTrue(j.getbit("bm", 77));

            byte[] dump = j.dump("bm");
            assertNotNull(dump);
            assertEquals("OK", j.restore(bytes("copy"), 0, dump));
            assertArrayEquals(whole, j.get(bytes("copy")));
            assertEquals("OK", j.rename("bm", "moved"));
            assertArrayEquals(whole, j.get(bytes("moved")));
            assertTrue(m.raw(bytes("moved")).chunked(), "RENAME moves the header, the chunks stay");
            assertEquals(-2, j.ttl("bm"));
            assertTrue(j.ttl("moved") > 990, "RENAME keeps the TTL");
            assertTrue(j.copy("moved", "c2", false));
            assertEquals(1, j.append("c2", "x") - 1_250_001);
            assertArrayEquals(whole, j.get(bytes("moved")), "COPY's destination is its own string");
            assertEquals(4, j.bitcount("c2", -1, -1), "the appended x, 0x78");
        }
    }

    @Test
    void setReplacesAChunkedStringAndTheCollectorFreesItsChunks() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.setrange("k", 200_000, "end");
            MapStore m = s.context().dbs.opened(0);
            assertTrue(m.raw(bytes("k")).chunked());
            ListElements e = m.elements(false);
            assertTrue(e.size() >= 2);
            assertEquals("end", j.getrange("k", 200_000, -1));
            j.set("k", "small");
            s.context().collector.walk(m, e);
            assertEquals(0, e.size(), "SET over a chunked string leaves its chunks to the collector");
            assertEquals("small", j.get("k"));
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
