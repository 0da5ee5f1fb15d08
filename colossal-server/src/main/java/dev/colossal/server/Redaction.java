package dev.colossal.server;

import java.nio.charset.StandardCharsets;

/**
 * The arguments SLOWLOG and MONITOR show of a command, with its secrets replaced by
 * {@code (redacted)} as redis-server 7.0 replaces them: every argument of AUTH, the user and
 * password after HELLO's AUTH, MIGRATE's AUTH password and AUTH2 user and password, a
 * {@code requirepass}, {@code masterauth} or {@code tls-key-file-pass} value in CONFIG SET, and
 * ACL SETUSER's user and rules.
 */
final class Redaction {

    private static final byte[] REDACTED = "(redacted)".getBytes(StandardCharsets.US_ASCII);

    private Redaction() {
    }

    /** @return {@code args}, or a copy of them with the secrets replaced */
    static byte[][] of(byte[][] args) {
        byte[][] out = args.clone();
        boolean setUser = Args.is(args[0], "ACL") && args.length > 2 && Args.is(args[1], "SETUSER");
        if (Args.is(args[0], "AUTH") || setUser) {
            for (int i = setUser ? 2 : 1; i < out.length; i++) {
                out[i] = REDACTED;
            }
        } else if (Args.is(args[0], "HELLO")) {
            for (int i = 2; i + 2 < out.length; i++) {
                if (Args.is(args[i], "AUTH")) {
                    out[i + 1] = REDACTED;
                    out[i + 2] = REDACTED;
                    i += 2;
                }
            }
        } else if (Args.is(args[0], "MIGRATE")) {
            // the options follow host port key db timeout; KEYS ends them
            for (int i = 6; i < out.length && !Args.is(args[i], "KEYS"); i++) {
                if (Args.is(args[i], "AUTH") && i + 1 < out.length) {
                    out[++i] = REDACTED;
                } else if (Args.is(args[i], "AUTH2") && i + 2 < out.length) {
                    out[++i] = REDACTED;
                    out[++i] = REDACTED;
                }
            }
        } else if (Args.is(args[0], "CONFIG") && args.length > 1 && Args.is(args[1], "SET")) {
            for (int i = 2; i + 1 < out.length; i += 2) {
                if (Args.is(args[i], "REQUIREPASS") || Args.is(args[i], "MASTERAUTH") || Args.is(args[i], "TLS-KEY-FILE-PASS")) {
                    out[i + 1] = REDACTED;
                }
            }
        }
        return out;
    }
}
