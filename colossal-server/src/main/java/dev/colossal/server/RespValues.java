package dev.colossal.server;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads back a reply a command wrote (RESP2 or RESP3), for the rewrites replication makes from
 * what a command answered ({@link Propagation}: SPOP's members, XADD's ID, BLPOP's key): strings,
 * numbers and doubles as their text, arrays, maps (flattened, key then value), sets and pushes as
 * lists, nulls as null. An error is {@link #ERROR}.
 */
final class RespValues {

    /** What an error reply reads as. */
    static final Object ERROR = new Object();

    private final byte[] b;
    private int at;

    private RespValues(byte[] b) {
        this.b = b;
    }

    /** @return the first value in {@code reply} */
    static Object read(byte[] reply) {
        return new RespValues(reply).value();
    }

    private Object value() {
        byte type = b[at++];
        String line = line();
        return switch (type) {
            case '$', '=' -> {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    yield null;
                }
                byte[] s = java.util.Arrays.copyOfRange(b, at, at + n);
                at += n + 2;
                yield s;
            }
            case '*', '~', '>', '%' -> {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    yield null;
                }
                if (type == '%') {
                    n *= 2;
                }
                List<Object> items = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    items.add(value());
                }
                yield items;
            }
            case '-', '!' -> ERROR;
            case '_' -> null;
            default -> Args.bytes(line); // + : , # (
        };
    }

    private String line() {
        int start = at;
        while (b[at] != '\r') {
            at++;
        }
        String s = new String(b, start, at - start, java.nio.charset.StandardCharsets.ISO_8859_1);
        at += 2;
        return s;
    }
}
