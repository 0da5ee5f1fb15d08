package dev.colossal.server;

import java.util.List;

/**
 * DEBUG PROTOCOL type: one sample reply of each RESP type, with the values Redis 7.0 sends, so
 * that a client library's tests can check it reads each one. A RESP2 client gets what Redis sends
 * it in place of the RESP3 type: a double or big number as a bulk string, a set as an array, a map
 * as a flat array, a boolean as 0 or 1, the attribute left out; push is refused.
 */
final class DebugProtocol {

    /** The types, in the order Redis's error lists them. */
    static final List<String> TYPES = List.of("string", "integer", "double", "bignum", "null", "array", "set", "map",
            "attrib", "push", "verbatim", "true", "false");
    private static final String WRONG_TYPE = "ERR Wrong protocol type name. Please use one of the following: "
            + String.join("|", TYPES);

    private DebugProtocol() {}

    /** Answers DEBUG PROTOCOL {@code type}, in {@code r}'s protocol. */
    static void reply(byte[] type, Reply r) {
        boolean resp3 = r.protocol >= 3;
        switch (Args.lower(type)) {
            case "string" -> r.bulk("Hello World");
            case "integer" -> r.integer(12345);
            case "double" -> raw(r, resp3 ? ",3.141\r\n" : "$5\r\n3.141\r\n");
            case "bignum" -> raw(r, (resp3 ? "(" : "$37\r\n") + "1234567999999999999999999999999999999\r\n");
            case "null" -> r.nullBulk();
            case "array", "set" -> {
                if (Args.is(type, "SET")) {
                    r.set(3);
                } else {
                    r.array(3);
                }
                for (int i = 0; i < 3; i++) {
                    r.integer(i);
                }
            }
            case "map" -> {
                r.map(3);
                for (int i = 0; i < 3; i++) {
                    r.integer(i);
                    bool(r, i == 1);
                }
            }
            case "attrib" -> {
                if (resp3) {
                    raw(r, "|1\r\n$14\r\nkey-popularity\r\n*2\r\n$7\r\nkey:123\r\n:90\r\n");
                }
                r.bulk("Some real reply following the attribute");
            }
            case "push" -> {
                if (!resp3) {
                    r.error("ERR RESP2 is not supported by this command");
                    return;
                }
                r.push(2);
                r.bulk("server-cpu-usage");
                r.integer(42);
                r.bulk("Some real reply following the push reply");
            }
            case "verbatim" -> r.verbatim("This is a verbatim\nstring");
            case "true", "false" -> bool(r, Args.is(type, "TRUE"));
            default -> r.error(WRONG_TYPE);
        }
    }

    private static void bool(Reply r, boolean b) {
        if (r.protocol >= 3) {
            raw(r, b ? "#t\r\n" : "#f\r\n");
        } else {
            r.integer(b ? 1 : 0);
        }
    }

    private static void raw(Reply r, String resp) {
        r.append(resp.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }
}
