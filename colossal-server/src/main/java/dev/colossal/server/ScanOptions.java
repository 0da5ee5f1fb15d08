package dev.colossal.server;

import java.util.OptionalLong;

/**
 * The options of SCAN and HSCAN, read in order as Redis reads them: COUNT (a number of at least
 * 1), MATCH, and for SCAN only, TYPE; anything else is a syntax error.
 *
 * @param count   about how many entries a step visits
 * @param pattern MATCH's glob, or null
 * @param type    TYPE's name, or null
 */
record ScanOptions(long count, byte[] pattern, byte[] type) {

    /**
     * @param a           the request
     * @param from        where the options start
     * @param typeAllowed whether TYPE is one (SCAN's)
     * @return the options, or null once the error is answered
     */
    static ScanOptions read(byte[][] a, int from, boolean typeAllowed, Reply r) {
        long count = 10;
        byte[] pattern = null;
        byte[] type = null;
        for (int j = from; j < a.length; j++) {
            boolean hasNext = j + 1 < a.length;
            if (Args.is(a[j], "COUNT") && hasNext) {
                OptionalLong parsed = Args.toLong(a[++j]);
                if (parsed.isEmpty()) {
                    r.error(Errors.NOT_INTEGER);
                    return null;
                }
                count = parsed.getAsLong();
                if (count < 1) {
                    r.error(Errors.SYNTAX);
                    return null;
                }
            } else if (Args.is(a[j], "MATCH") && hasNext) {
                pattern = a[++j];
            } else if (typeAllowed && Args.is(a[j], "TYPE") && hasNext) {
                type = a[++j];
            } else {
                r.error(Errors.SYNTAX);
                return null;
            }
        }
        return new ScanOptions(count, pattern, type);
    }
}
