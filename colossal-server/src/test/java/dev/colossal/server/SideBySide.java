package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Assumptions;

/**
 * A redis-server and a Colossal server given the same random commands, seed after seed, every
 * reply compared byte for byte: the frame of the random differential tests. A failure names the
 * seed and the last commands sent. The test is skipped where redis-server is not installed.
 */
final class SideBySide implements AutoCloseable {

    private final Process redis;
    private final ColossalServer ours;
    private final Wire theirs;
    private final Wire mine;
    private final List<String> sent = new ArrayList<>();
    /** What of both replies to a command may differ by right (a clock's idle time, a table's order), made alike before the comparison. */
    private BiFunction<String[], String, String> masked = (cmd, reply) -> reply;

    /**
     * @param config        the Colossal server's configuration
     * @param redisSettings redis-server's settings, as {@code --name value} arguments
     */
    SideBySide(ServerConfig config, String... redisSettings) throws Exception {
        int port = TestServers.freePort();
        this.redis = TestServers.redis(port, redisSettings);
        Assumptions.assumeTrue(redis != null, "redis-server not installed");
        try {
            this.ours = ColossalServer.start(config);
            this.theirs = new Wire(port);
            this.mine = new Wire(ours.port());
        } catch (Exception e) {
            redis.destroy();
            throw e;
        }
    }

    /** Compares replies after {@code mask} made what may differ by right alike. @return this */
    SideBySide masking(UnaryOperator<String> mask) {
        this.masked = (cmd, reply) -> mask.apply(reply);
        return this;
    }

    /** Compares replies after {@code mask}, given the command and a reply, made what may differ by right alike. @return this */
    SideBySide masking(BiFunction<String[], String, String> mask) {
        this.masked = mask;
        return this;
    }

    /** As {@link #run(long, int, LongFunction, Function)}, with the same {@code setup} for every seed. */
    void run(long seeds, int rounds, List<String[]> setup, Function<SplittableRandom, List<String[]>> draw) throws IOException {
        run(seeds, rounds, seed -> setup, draw);
    }

    /**
     * For each seed from 1 (or {@code -Dcolossal.firstSeed}) to {@code seeds}: DISCARD (a seed may end inside MULTI), FLUSHALL, HELLO 2
     * (odd seeds) or 3 (even ones), the seed's {@code setup} commands (replies not compared: HELLO's differ
     * in the client id), then
     * {@code rounds} draws of {@code draw}, each a few commands whose replies are compared.
     */
    void run(long seeds, int rounds, LongFunction<List<String[]>> setup, Function<SplittableRandom, List<String[]>> draw)
            throws IOException {
        // a sweep goes on past a seed that failed, or runs one alone
        for (long seed = Long.getLong("colossal.firstSeed", 1); seed <= seeds; seed++) {
            List<String[]> first = new ArrayList<>(List.of(new String[] {"DISCARD"}, new String[] {"FLUSHALL"},
                    new String[] {"HELLO", seed % 2 == 0 ? "3" : "2"}));
            first.addAll(setup.apply(seed));
            for (String[] cmd : first) {
                theirs.call(cmd);
                mine.call(cmd);
            }
            SplittableRandom random = new SplittableRandom(seed);
            for (int i = 0; i < rounds; i++) {
                for (String[] cmd : draw.apply(random)) {
                    compare(seed, cmd);
                }
            }
        }
    }

    private void compare(long seed, String[] cmd) throws IOException {
        sent.add(String.join(" | ", cmd));
        byte[] frame = Wire.encode(cmd);
        theirs.send(frame);
        mine.send(frame);
        String want = masked.apply(cmd, theirs.reply());
        String got = masked.apply(cmd, mine.reply());
        if (!want.equals(got)) {
            List<String> tail = sent.subList(Math.max(0, sent.size() - 12), sent.size());
            assertEquals(want.replace("\r\n", "\\r\\n"), got.replace("\r\n", "\\r\\n"),
                    "seed " + seed + "; last commands:\n  " + String.join("\n  ", tail));
        }
    }

    @Override
    public void close() throws IOException {
        try {
            mine.close();
            theirs.close();
            ours.close();
        } finally {
            redis.destroy();
            try {
                redis.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
