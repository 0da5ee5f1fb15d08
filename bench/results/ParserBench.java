package dev.colossal.server;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;

/**
 * Thread CPU per request of RequestParser.parse and RequestParser.args over a native buffer of 16
 * pipelined requests, what a connection does for each command of a {@code -P 16} client: for the
 * small commands of the general path (INCR, HSET, SADD, EXISTS, TTL, HGET, LPUSH), N requests each,
 * three passes, the last printed in ns per request. Run with BENCH=ParserBench bench/results/command-path-inprocess.sh.
 */
public final class ParserBench {
    private static final String[][] COMMANDS = {
        {"INCR", "counter:1"}, {"HSET", "hash:1", "field", "value"}, {"SADD", "set:1", "member"},
        {"EXISTS", "key:1"}, {"TTL", "key:1"}, {"HGET", "hash:1", "field"}, {"LPUSH", "list:1", "value"},
    };

    public static void main(String[] a) throws Exception {
        int n = Integer.parseInt(a[0]);
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        RequestParser p = new RequestParser(512L << 20);
        long sink = 0;
        StringBuilder line = new StringBuilder();
        try (Arena arena = Arena.ofConfined()) {
            for (int pass = 0; pass < 3; pass++) {
                line.setLength(0);
                for (String[] c : COMMANDS) {
                    byte[] one = resp(c);
                    MemorySegment buf = arena.allocate((long) one.length * 16);
                    for (int i = 0; i < 16; i++) {
                        MemorySegment.copy(MemorySegment.ofArray(one), 0, buf, (long) i * one.length, one.length);
                    }
                    int limit = (int) buf.byteSize();
                    long t0 = mx.getCurrentThreadCpuTime();
                    for (int r = 0; r < n; r += 16) {
                        int pos = 0;
                        while (pos < limit && p.parse(buf, pos, limit)) {
                            byte[][] args = p.args(buf);
                            sink += args.length + args[args.length - 1].length;
                            pos = p.next;
                        }
                    }
                    long t1 = mx.getCurrentThreadCpuTime();
                    line.append(c[0]).append(' ').append(String.format("%.1f", (t1 - t0) / (double) n)).append(' ');
                }
            }
        }
        System.out.println(line.toString().trim() + (sink == 42 ? " " : ""));
    }

    private static byte[] resp(String[] c) {
        StringBuilder s = new StringBuilder("*" + c.length + "\r\n");
        for (String x : c) {
            s.append('$').append(x.length()).append("\r\n").append(x).append("\r\n");
        }
        return s.toString().getBytes(StandardCharsets.US_ASCII);
    }
}
