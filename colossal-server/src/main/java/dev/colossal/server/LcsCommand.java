package dev.colossal.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;

/**
 * LCS key1 key2 [LEN] [IDX] [MINMATCHLEN n] [WITHMATCHLEN]: the longest common subsequence of two
 * strings (a missing key is ""), as Redis 7.0 finds and answers it. The classic table of LCS
 * lengths of every pair of prefixes is filled, then walked back from the ends; which of two
 * equally long subsequences is answered, and the matched ranges IDX lists (from the ends of the
 * strings back to their starts), follow from Redis's walk: on a tie it steps back in the second string.
 * The table takes {@code 4 (len1 + 1) (len2 + 1)} bytes: refused past proto-max-bulk-len, as in Redis.
 */
final class LcsCommand {

    private final ServerContext ctx;

    LcsCommand(ServerContext ctx) {
        this.ctx = ctx;
    }

    void register(CommandTable t) {
        t.add("lcs", -3, List.of("readonly"), 1, 2, 1, this::lcs);
    }

    /** A run of matched bytes: {@code [aStart, aEnd]} in the first string, {@code [bStart, bStart + aEnd - aStart]} in the second. */
    private record Range(int aStart, int aEnd, int bStart) {}

    private void lcs(Client c, byte[][] a, Reply r) {
        KeyValueStore db = ctx.db(c);
        KeyValueStore.Entry ea = db.get(a[1]);
        KeyValueStore.Entry eb = db.get(a[2]);
        if ((ea != null && !ea.isString()) || (eb != null && !eb.isString())) {
            r.error("ERR The specified keys must contain string values");
            return;
        }
        byte[] x = bytes(ea);
        byte[] y = bytes(eb);
        boolean idx = false;
        boolean len = false;
        boolean withMatchLen = false;
        long minMatchLen = 0;
        for (int j = 3; j < a.length; j++) {
            if (Args.is(a[j], "IDX")) {
                idx = true;
            } else if (Args.is(a[j], "LEN")) {
                len = true;
            } else if (Args.is(a[j], "WITHMATCHLEN")) {
                withMatchLen = true;
            } else if (Args.is(a[j], "MINMATCHLEN") && j + 1 < a.length) {
                OptionalLong n = Args.toLong(a[++j]);
                if (n.isEmpty()) {
                    r.error(Errors.NOT_INTEGER);
                    return;
                }
                minMatchLen = Math.max(0, n.getAsLong());
            } else {
                r.error(Errors.SYNTAX);
                return;
            }
        }
        if (idx && len) {
            r.error("ERR If you want both the length and indexes, please just use IDX.");
            return;
        }
        long cells = (x.length + 1L) * (y.length + 1L);
        if (cells * Integer.BYTES > ctx.maxBulkBytes()) {
            r.error("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len");
            return;
        }
        int[] table;
        try {
            table = table(x, y);
        } catch (OutOfMemoryError e) { // Redis's allocation may fail too: the heap is the JVM's limit here
            r.error("ERR Insufficient memory, failed allocating transient memory for LCS");
            return;
        }
        int w = y.length + 1;
        int total = table[x.length * w + y.length];
        if (len) {
            r.integer(total);
            return;
        }
        byte[] common = new byte[total];
        List<Range> ranges = walk(x, y, table, common);
        if (!idx) {
            r.bulk(common);
            return;
        }
        r.map(2);
        r.bulk("matches");
        List<Range> kept = new ArrayList<>();
        for (Range m : ranges) {
            if (minMatchLen == 0 || m.aEnd() - m.aStart() + 1 >= minMatchLen) {
                kept.add(m);
            }
        }
        r.array(kept.size());
        for (Range m : kept) {
            int matchLen = m.aEnd() - m.aStart() + 1;
            r.array(withMatchLen ? 3 : 2);
            r.array(2);
            r.integer(m.aStart());
            r.integer(m.aEnd());
            r.array(2);
            r.integer(m.bStart());
            r.integer(m.bStart() + matchLen - 1);
            if (withMatchLen) {
                r.integer(matchLen);
            }
        }
        r.bulk("len");
        r.integer(total);
    }

    private static byte[] bytes(KeyValueStore.Entry e) {
        return e == null ? new byte[0] : Arrays.copyOfRange(e.array(), e.offset(), e.offset() + e.length());
    }

    /** @return LCS lengths: {@code [i * (y.length + 1) + j]} is that of {@code x[0, i)} and {@code y[0, j)} */
    private static int[] table(byte[] x, byte[] y) {
        int w = y.length + 1;
        int[] t = new int[(x.length + 1) * w];
        for (int i = 1; i <= x.length; i++) {
            for (int j = 1; j <= y.length; j++) {
                t[i * w + j] = x[i - 1] == y[j - 1] ? t[(i - 1) * w + j - 1] + 1 : Math.max(t[(i - 1) * w + j], t[i * w + j - 1]);
            }
        }
        return t;
    }

    /**
     * Walks the table back from the ends: fills {@code common} with the subsequence and returns the
     * runs of contiguous matches, the last run of the strings first.
     */
    private static List<Range> walk(byte[] x, byte[] y, int[] t, byte[] common) {
        int w = y.length + 1;
        List<Range> ranges = new ArrayList<>();
        int i = x.length;
        int j = y.length;
        int k = common.length;
        int aStart = -1;
        int aEnd = 0;
        int bStart = 0;
        while (i > 0 && j > 0) {
            boolean close = false;
            if (x[i - 1] == y[j - 1]) {
                common[--k] = x[i - 1];
                if (aStart < 0) {
                    aEnd = i - 1;
                }
                aStart = i - 1; // each match after the first continues the run: a mismatch closes it first
                bStart = j - 1;
                close = aStart == 0 || bStart == 0;
                i--;
                j--;
            } else {
                if (t[(i - 1) * w + j] > t[i * w + j - 1]) {
                    i--;
                } else {
                    j--;
                }
                close = aStart >= 0;
            }
            if (close) {
                ranges.add(new Range(aStart, aEnd, bStart));
                aStart = -1;
            }
        }
        return ranges;
    }
}
