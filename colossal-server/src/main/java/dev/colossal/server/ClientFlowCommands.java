package dev.colossal.server;

import java.util.OptionalLong;

/**
 * The CLIENT subcommands that hold back a client's commands or replies: PAUSE and UNPAUSE
 * ({@link ClientPause}), and REPLY ({@link ReplyMode}), with Redis 7.0's errors.
 */
final class ClientFlowCommands {

    private final ServerContext ctx;

    ClientFlowCommands(ServerContext ctx) {
        this.ctx = ctx;
    }

    /** Runs {@code CLIENT a[1] ...} if it is one of these. @return whether it was */
    boolean run(Client c, byte[][] a, Reply r) {
        byte[] sub = a[1];
        if (Args.is(sub, "PAUSE")) {
            pause(a, r);
        } else if (Args.is(sub, "UNPAUSE")) {
            if (a.length != 2) {
                r.error(Errors.arity("client|unpause"));
                return true;
            }
            ctx.pause.unpause();
            r.ok();
        } else if (Args.is(sub, "REPLY")) {
            reply(c, a, r);
        } else {
            return false;
        }
        return true;
    }

    /** CLIENT PAUSE timeout [WRITE|ALL]: the mode is checked before the timeout, as Redis does. */
    private void pause(byte[][] a, Reply r) {
        if (a.length < 3) {
            r.error(Errors.arity("client|pause"));
            return;
        }
        if (a.length > 4) {
            r.error("ERR unknown subcommand or wrong number of arguments for '" + Errors.text(a[1])
                    + "'. Try CLIENT HELP.");
            return;
        }
        boolean all = true;
        if (a.length == 4) {
            if (Args.is(a[3], "WRITE")) {
                all = false;
            } else if (!Args.is(a[3], "ALL")) {
                r.error("ERR CLIENT PAUSE mode must be WRITE or ALL");
                return;
            }
        }
        OptionalLong millis = Args.toLong(a[2]);
        if (millis.isEmpty()) {
            r.error("ERR timeout is not an integer or out of range");
            return;
        }
        if (millis.getAsLong() < 0) {
            r.error("ERR timeout is negative");
            return;
        }
        ctx.pause.pause(millis.getAsLong(), all);
        r.ok();
    }

    /** CLIENT REPLY ON|OFF|SKIP: OFF and SKIP answer nothing, not even to themselves. */
    private static void reply(Client c, byte[][] a, Reply r) {
        if (a.length != 3) {
            r.error(Errors.arity("client|reply"));
        } else if (Args.is(a[2], "ON")) {
            c.replies = ReplyMode.ON;
            r.ok();
        } else if (Args.is(a[2], "OFF")) {
            c.replies = ReplyMode.OFF;
        } else if (Args.is(a[2], "SKIP")) {
            if (c.replies != ReplyMode.OFF) {
                c.replies = ReplyMode.SKIP_NEXT;
            }
        } else {
            r.error(Errors.SYNTAX);
        }
    }
}
