package dev.colossal.server;

import java.util.OptionalLong;

/**
 * XADD's and XTRIM's options, read in Redis 7.0's order with its errors:
 * {@code [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]]}, and for XADD the ID that
 * ends them.
 *
 * @param idAt       where XADD's ID is (XTRIM: -1)
 * @param id         XADD's ID, null for {@code *}
 * @param seqGiven   false for XADD's {@code ms-*}
 * @param noMkStream XADD's NOMKSTREAM
 * @param minId      the MINID threshold, or null
 * @param maxLen     the MAXLEN threshold, or -1
 * @param approx     {@code ~}: whole nodes only
 * @param limit      entries a trim may remove (0: no bound)
 */
record StreamTrimArgs(int idAt, StreamId id, boolean seqGiven, boolean noMkStream, StreamId minId, long maxLen,
                      boolean approx, long limit) {

    /** @return whether a trim was asked for */
    boolean trims() {
        return minId != null || maxLen >= 0;
    }

    /**
     * @param xadd           XADD's arguments (else XTRIM's)
     * @param nodeMaxEntries stream-node-max-entries, of which ~'s default LIMIT is 100 times
     * @return the options, or null once the error is answered
     */
    static StreamTrimArgs parse(byte[][] a, boolean xadd, long nodeMaxEntries, Reply r) {
        int idAt = -1;
        StreamId id = null;
        boolean seqGiven = true;
        boolean noMk = false;
        StreamId minId = null;
        long maxLen = -1;
        boolean approx = false;
        long limit = -1;
        for (int i = 2; i < a.length; i++) {
            int more = a.length - 1 - i;
            byte[] opt = a[i];
            if (xadd && opt.length == 1 && opt[0] == '*') {
                idAt = i;
                break;
            }
            boolean isMaxLen = Args.is(opt, "MAXLEN");
            if ((isMaxLen || Args.is(opt, "MINID")) && more > 0) {
                if (minId != null || maxLen >= 0) {
                    r.error("ERR syntax error, MAXLEN and MINID options at the same time are not compatible");
                    return null;
                }
                approx = false;
                byte[] next = a[i + 1];
                if (more >= 2 && next.length == 1 && (next[0] == '~' || next[0] == '=')) {
                    approx = next[0] == '~';
                    i++;
                }
                if (isMaxLen) {
                    OptionalLong v = Args.toLong(a[i + 1]);
                    if (v.isEmpty()) {
                        r.error(Errors.NOT_INTEGER);
                        return null;
                    }
                    if (v.getAsLong() < 0) {
                        r.error("ERR The MAXLEN argument must be >= 0.");
                        return null;
                    }
                    maxLen = v.getAsLong();
                } else {
                    minId = StreamId.parse(a[i + 1], 0, true);
                    if (minId == null) {
                        r.error(StreamId.INVALID);
                        return null;
                    }
                }
                i++;
            } else if (Args.is(opt, "LIMIT") && more > 0) {
                OptionalLong v = Args.toLong(a[i + 1]);
                if (v.isEmpty()) {
                    r.error(Errors.NOT_INTEGER);
                    return null;
                }
                if (v.getAsLong() < 0) {
                    r.error("ERR The LIMIT argument must be >= 0.");
                    return null;
                }
                limit = v.getAsLong();
                i++;
            } else if (xadd && Args.is(opt, "NOMKSTREAM")) {
                noMk = true;
            } else if (xadd) {
                StreamId.Parsed p = StreamId.parse(opt, 0, true, true);
                if (p == null) {
                    r.error(StreamId.INVALID);
                    return null;
                }
                idAt = i;
                id = p.id();
                seqGiven = p.seqGiven();
                break;
            } else {
                r.error(Errors.SYNTAX);
                return null;
            }
        }
        boolean trims = minId != null || maxLen >= 0;
        if (limit >= 0 && !trims) {
            r.error("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy");
            return null;
        }
        if (!xadd && !trims) {
            r.error("ERR syntax error, XTRIM must be called with a trimming strategy");
            return null;
        }
        if (limit >= 0 && !approx) {
            r.error("ERR syntax error, LIMIT cannot be used without the special ~ option");
            return null;
        }
        if (limit < 0) {
            // Redis bounds an approximate trim's work by default, an exact one not at all
            limit = approx ? defaultLimit(nodeMaxEntries) : 0;
        }
        return new StreamTrimArgs(idAt, id, seqGiven, noMk, minId, maxLen, approx, limit);
    }

    private static long defaultLimit(long nodeMaxEntries) {
        long l = nodeMaxEntries > Long.MAX_VALUE / 100 ? Long.MAX_VALUE : 100 * nodeMaxEntries;
        if (l <= 0) {
            return 10_000;
        }
        return Math.min(l, 1_000_000);
    }
}
