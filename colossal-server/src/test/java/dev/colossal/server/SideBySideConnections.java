package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Steps sent on several connections to redis-server and to Colossal at once, every byte each
 * connection receives compared: what other connections' commands send it (messages, monitor lines,
 * invalidations) included. After each step every connection is sent {@code PING sentinel-N}, the
 * step's own first, and what it received before the answer is that step's. A connection inside
 * MULTI would queue its sentinel, so it is read one reply per command instead. In a step,
 * {@code {id:N}} stands for connection N's client id on the server it is sent to.
 */
final class SideBySideConnections implements AutoCloseable {

    /** A command sent on connection {@code conn}. */
    record Step(int conn, String... cmd) {
    }

    final List<Wire> theirs = new ArrayList<>();
    final List<Wire> ours = new ArrayList<>();
    private final List<String> theirIds = new ArrayList<>();
    private final List<String> ourIds = new ArrayList<>();

    SideBySideConnections(int redisPort, int ourPort, int connections) throws IOException {
        for (int i = 0; i < connections; i++) {
            theirs.add(new Wire(redisPort));
            ours.add(new Wire(ourPort));
            theirIds.add(theirs.get(i).call("CLIENT", "ID").substring(1).trim());
            ourIds.add(ours.get(i).call("CLIENT", "ID").substring(1).trim());
        }
    }

    /**
     * Runs {@code steps}, failing at the first connection that received other bytes.
     *
     * @param masked what of a connection's bytes may differ by right, replaced alike in both
     * @param check  looks at what Colossal sent a connection, before it is masked
     */
    void run(List<Step> steps, UnaryOperator<String> masked, java.util.function.Consumer<String> check) throws IOException {
        List<String> done = new ArrayList<>();
        Set<Integer> inMulti = new HashSet<>();
        Set<Integer> quit = new HashSet<>();
        int sentinel = 0;
        for (Step step : steps) {
            done.add(step.conn + ": " + String.join(" ", step.cmd));
            theirs.get(step.conn).send(Wire.encode(withIds(step.cmd, theirIds)));
            ours.get(step.conn).send(Wire.encode(withIds(step.cmd, ourIds)));
            String name = step.cmd[0];
            if (name.equalsIgnoreCase("MULTI")) {
                inMulti.add(step.conn);
            }
            if (name.equalsIgnoreCase("QUIT")) {
                quit.add(step.conn);
            }
            for (int k = 0; k < theirs.size(); k++) {
                int conn = (step.conn + k) % theirs.size();
                if (inMulti.contains(conn) && conn != step.conn || quit.contains(conn) && conn != step.conn) {
                    continue;
                }
                String mark = "sentinel-" + sentinel++;
                // a connection's QUIT is answered, then closed: no sentinel follows
                boolean queued = inMulti.contains(conn) || quit.contains(conn);
                String want = queued ? theirs.get(conn).reply() : PubSubDifferentialTest.upToSentinel(theirs.get(conn), mark);
                String got = queued ? ours.get(conn).reply() : PubSubDifferentialTest.upToSentinel(ours.get(conn), mark);
                check.accept(got);
                assertEquals(PubSubDifferentialTest.show(masked.apply(want)), PubSubDifferentialTest.show(masked.apply(got)),
                        "connection " + conn + " after:\n  " + String.join("\n  ", done));
            }
            if (name.equalsIgnoreCase("EXEC") || name.equalsIgnoreCase("DISCARD")) {
                inMulti.remove(step.conn);
            }
        }
    }

    private static String[] withIds(String[] cmd, List<String> ids) {
        String[] out = cmd.clone();
        for (int i = 0; i < out.length; i++) {
            for (int c = 0; c < ids.size(); c++) {
                out[i] = out[i].replace("{id:" + c + "}", ids.get(c));
            }
        }
        return out;
    }

    @Override
    public void close() throws IOException {
        for (Wire w : theirs) {
            w.close();
        }
        for (Wire w : ours) {
            w.close();
        }
    }
}
