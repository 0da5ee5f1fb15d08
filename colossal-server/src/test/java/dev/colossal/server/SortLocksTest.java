package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SORT's GET and BY read keys its elements name while other clients write them: the keys it reads
 * are locked as MSET and scripts lock theirs, so one SORT sees one state of them, never half of an
 * MSET. And SORT ... STORE is a list like any other: it survives a restart.
 */
class SortLocksTest {

    private static final int ELEMENTS = 300;

    @TempDir
    Path dir;

    @Test
    void aSortSeesAllOrNoneOfAnMsetOfTheKeysItsPatternsName() throws Exception {
        // Four event loops, so that the two connections' commands run at the same time even on two cores
        ServerConfig d = ServerConfig.defaults().withDataDir(dir).withPorts(0, -1);
        ServerConfig four = new ServerConfig(d.bind(), d.port(), d.httpPort(), d.dataDir(), d.requirePass(), d.maxClients(),
                d.maxBulkBytes(), d.idleTimeoutSeconds(), 4, d.busyPollMicros());
        try (ColossalServer s = ColossalServer.start(four);
             Wire reader = new Wire(s.port())) {
            String list = listOnItsOwnStripe();
            String[] push = new String[ELEMENTS + 2];
            push[0] = "RPUSH";
            push[1] = list;
            for (int i = 0; i < ELEMENTS; i++) {
                push[i + 2] = Integer.toString(i);
            }
            reader.call(push);
            reader.call(mset(0));
            AtomicBoolean stop = new AtomicBoolean();
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                Future<?> writer = pool.submit(() -> {
                    try (Wire w = new Wire(s.port())) {
                        for (int v = 1; !stop.get(); v++) {
                            w.call(mset(v));
                        }
                    }
                    return null;
                });
                for (int round = 0; round < 300; round++) {
                    String reply = reader.call("SORT", list, "BY", "nosort", "GET", "w_*");
                    Set<String> values = new HashSet<>(List.of(reply.substring(reply.indexOf("\r\n") + 2).split("\r\n")));
                    values.removeIf(line -> line.startsWith("$"));
                    assertEquals(1, values.size(), "one SORT saw the weights of several MSETs: " + values);
                }
                stop.set(true);
                writer.get();
            } finally {
                pool.shutdown();
            }
        }
    }

    /**
     * A list key whose stripe no weight shares: else SORT would wait for MSET on the list's own
     * lock, and the test would pass without the locks it is about.
     */
    private static String listOnItsOwnStripe() {
        Set<Integer> weights = new HashSet<>();
        for (int i = 0; i < ELEMENTS; i++) {
            weights.add(stripe("w_" + i));
        }
        for (int i = 0; ; i++) {
            if (!weights.contains(stripe("l" + i))) {
                return "l" + i;
            }
        }
    }

    private static int stripe(String key) {
        return KeyLocks.stripe(java.lang.foreign.MemorySegment.ofArray(key.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    /** MSET of every element's weight to {@code v}. */
    private static String[] mset(int v) {
        List<String> all = new ArrayList<>(List.of("MSET"));
        for (int i = 0; i < ELEMENTS; i++) {
            all.add("w_" + i);
            all.add("v" + v);
        }
        return all.toArray(String[]::new);
    }

    @Test
    void aStoredSortIsAListThatSurvivesARestart() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir);
             Wire w = new Wire(s.port())) {
            w.call("SADD", "s", "3", "1", "2");
            w.call("SET", "n_1", "one");
            assertEquals(":6\r\n", w.call("SORT", "s", "DESC", "GET", "#", "GET", "n_*", "STORE", "dst"));
        }
        try (ColossalServer s = TestServers.colossal(dir);
             Wire w = new Wire(s.port())) {
            assertEquals("+list\r\n", w.call("TYPE", "dst"));
            assertEquals("*6\r\n$1\r\n3\r\n$0\r\n\r\n$1\r\n2\r\n$0\r\n\r\n$1\r\n1\r\n$3\r\none\r\n", w.call("LRANGE", "dst", "0", "-1"));
        }
    }
}
