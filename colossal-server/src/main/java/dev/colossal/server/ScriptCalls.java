package dev.colossal.server;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

/**
 * {@code redis.call} and {@code redis.pcall}: a script's command goes through the same
 * {@link CommandTable} dispatch as a client's (same checks, counts, errors), into a reply of the
 * script's own whose bytes become a Lua value. Redis's script-only refusals come first, in its words.
 */
final class ScriptCalls {

    /** A reply a command gave a script larger than this is freed after it, not kept for the next. */
    private static final int KEEP_REPLY_BYTES = 64 * 1024;

    private final CommandTable table;
    private final KeyLocks locks;

    private final ServerContext ctx;
    private final AclUsers acl;

    ScriptCalls(CommandTable table, KeyLocks locks, ServerContext ctx) {
        this.ctx = ctx;
        this.acl = ctx.acl;
        this.table = table;
        this.locks = locks;
    }

    /**
     * An error reply {@code redis.call} raises: its message is the reply's text (a string, as
     * Redis gives to a script's pcall), and it answers the client with that text as it is, where
     * other errors get Redis's {@code ERR} before them.
     */
    static final class CommandError extends LuaError {
        private static final long serialVersionUID = 1L;

        CommandError(String text) {
            super(LuaValue.valueOf(text));
        }
    }

    /**
     * @param raise {@code redis.call} (an error reply is raised) rather than {@code redis.pcall}
     *              (it is returned as {@code {err=...}})
     */
    LuaValue call(ScriptRun run, Varargs a, boolean raise) {
        int n = a.narg();
        if (n == 0) {
            return fail(run, "ERR Please specify at least one argument for this redis lib call", raise);
        }
        byte[][] args = new byte[n][];
        for (int i = 0; i < n; i++) {
            LuaValue v = a.arg(i + 1);
            if (v.type() != LuaValue.TSTRING && v.type() != LuaValue.TNUMBER) {
                return fail(run, "ERR Lua redis lib command arguments must be strings or integers", raise);
            }
            args[i] = v.type() == LuaValue.TNUMBER ? numberText(v.todouble()) : RedisLib.bytes(v.strvalue());
        }
        LuaDebugger debugger = run.debugger != null && run.debugger.logsCalls() ? run.debugger : null;
        if (debugger != null) {
            debugger.log("<redis> " + words(args));
        }
        CommandSpec spec = table.find(args[0]);
        if (spec == null) {
            return fail(run, "ERR Unknown Redis command called from script", raise);
        }
        if (!spec.arityOk(n)) {
            return fail(run, "ERR Wrong number of args calling Redis command from script", raise);
        }
        String refusal = refusal(spec, args);
        if (refusal != null) {
            return fail(run, refusal, raise);
        }
        if (!run.inner.unrestricted()) {
            AclUsers.Denial d = acl.refusal(ctx, run.inner, aclName(spec, args), args, "lua");
            if (d != null) {
                return fail(run, switch (d.reason()) {
                    case "command" -> "ERR The user executing the script can't run this command or subcommand";
                    case "key" -> "ERR The user executing the script can't access at least one of the keys mentioned in"
                            + " the command arguments";
                    default -> "ERR The user executing the script can't publish to the channel mentioned in the command";
                }, raise);
            }
        }
        if (run.readOnly && (spec.writes() || MAY_REPLICATE.contains(spec.name()))) {
            return fail(run, "ERR Write commands are not allowed from read-only scripts.", raise);
        }
        if (run.refuseFirstWrite && !run.wrote() && OomRefusal.addsData(spec, args)) {
            return fail(run, OomRefusal.ERROR, raise);
        }
        if (spec.writes()) {
            if (!run.writing()) {
                throw new ScriptHook.Killed();
            }
        }
        spec.forEachKey(args, key -> {
            java.util.concurrent.locks.Lock taken = locks.lockUnlessHeld(key);
            if (taken != null) {
                run.undeclared.add(taken);
            }
        });
        Reply r = run.inner.reply;
        table.execute(run.inner, args);
        if (debugger != null) {
            logReply(debugger, r.segment().asSlice(0, r.len).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        }
        LuaValue v = LuaReplies.toLua(r.segment(), r.len);
        r.reset(KEEP_REPLY_BYTES);
        if (raise && v instanceof LuaTable t && t.rawget(LuaReplies.ERR).isstring()) {
            throw new CommandError(t.rawget(LuaReplies.ERR).tojstring());
        }
        return v;
    }

    /**
     * {@code redis.acl_check_cmd}: whether the script's user may run that command on those keys and
     * channels (nothing is logged, as in Redis), after checking the arguments and that the command
     * (and subcommand) is one, in Redis's words.
     */
    LuaValue aclCheck(ScriptRun run, Varargs a) {
        int n = a.narg();
        if (n == 0) {
            throw new LuaError(LuaValue.valueOf("Please specify at least one argument for this redis lib call"));
        }
        byte[][] args = new byte[n][];
        for (int i = 0; i < n; i++) {
            LuaValue v = a.arg(i + 1);
            if (v.type() != LuaValue.TSTRING && v.type() != LuaValue.TNUMBER) {
                throw new LuaError(LuaValue.valueOf("Lua redis lib command arguments must be strings or integers"));
            }
            args[i] = v.type() == LuaValue.TNUMBER ? numberText(v.todouble()) : RedisLib.bytes(v.strvalue());
        }
        CommandSpec spec = table.find(args[0]);
        if (spec == null || n > 1 && LastCommand.of(spec, args).equals(LastCommand.NONE)) {
            throw new LuaError(LuaValue.valueOf("Invalid command passed to redis.acl_check_cmd()"));
        }
        AclUser user = run.inner.user;
        return LuaValue.valueOf(user == null || AclUsers.check(user.rules, aclName(spec, args), args) == null);
    }

    /**
     * A number argument as Redis 7.0 writes it ({@code %.17g}: {@code 1e+20}, {@code
     * 0.10000000000000001}), where LuaJ writes {@code 1.0E20}. NaN is {@code -nan}, the NaN x86
     * arithmetic makes, whose sign Java does not keep.
     */
    private static byte[] numberText(double d) {
        String s = Double.isNaN(d) ? "-nan" : Double.isInfinite(d) ? (d > 0 ? "inf" : "-inf") : LuaJson.g(d, 17);
        return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    /** @return the name ACL checks: the subcommand's ({@code config|get}), or for one Redis does not know the container's */
    private static String aclName(CommandSpec spec, byte[][] args) {
        String name = LastCommand.of(spec, args);
        return name.equals(LastCommand.NONE) ? spec.name() : name;
    }

    /** {@link #fail(String, boolean)}, logged {@code <error>} (without its {@code ERR}) where a debugger logs the script's calls. */
    private static LuaValue fail(ScriptRun run, String text, boolean raise) {
        LuaDebugger debugger = run.debugger;
        if (debugger != null && debugger.logsCalls()) {
            debugger.log("<error> " + (text.startsWith("ERR ") ? text.substring(4) : text));
        }
        return fail(text, raise);
    }

    /** Logs a command's reply for the debugger: an error reply's line first as {@code <error>}, as Redis's debugger shows it. */
    private static void logReply(LuaDebugger debugger, byte[] resp) {
        if (resp.length > 0 && resp[0] == '-') {
            debugger.log("<error> " + new String(resp, 0, Math.max(resp.length - 2, 0), java.nio.charset.StandardCharsets.UTF_8));
        }
        debugger.logCut("<reply> " + LuaRepr.reply(resp));
    }

    /** @return a command's words joined by spaces, as the debugger logs a call */
    private static String words(byte[][] args) {
        StringBuilder sb = new StringBuilder();
        for (byte[] arg : args) {
            if (!sb.isEmpty()) {
                sb.append(' ');
            }
            sb.append(new String(arg, java.nio.charset.StandardCharsets.UTF_8));
        }
        return sb.toString();
    }

    private static LuaValue fail(String text, boolean raise) {
        if (raise) {
            throw new CommandError(text);
        }
        return LuaReplies.errorTable(text);
    }

    /**
     * Commands that write nothing but Redis 7.0 marks as replicated (its internal {@code
     * may-replicate}, which COMMAND does not show): a read-only script may not run them, as a
     * replica would not.
     */
    private static final java.util.Set<String> MAY_REPLICATE = java.util.Set.of("publish", "spublish");

    /** Containers whose subcommands Redis 7.0 flags {@code noscript}, each but HELP. */
    private static final java.util.Set<String> NOSCRIPT_CONTAINERS = java.util.Set.of("client", "config", "latency",
            "script", "module");

    /**
     * Commands Redis refuses in scripts: transactions, connection state, scripting itself, SHUTDOWN,
     * CLIENT, CONFIG, LATENCY, SCRIPT and MODULE but for their HELP, and the subcommands of other
     * containers Redis flags {@code noscript} (CLUSTER RESET, FAILOVER, ...). A container's subcommand Redis
     * does not know is an unknown command there, as Redis looks subcommands up before anything else.
     *
     * @return the refusal, or null if the command may run
     */
    private static String refusal(CommandSpec spec, byte[][] args) {
        if (LastCommand.of(spec, args).equals(LastCommand.NONE)) {
            return "ERR Unknown Redis command called from script";
        }
        if (NOSCRIPT_CONTAINERS.contains(spec.name())) {
            return Args.is(args[1], "HELP") ? null : "ERR This Redis command is not allowed from script";
        }
        // a subcommand Redis flags noscript in another container (CLUSTER RESET, ...)
        CommandFacts.Entry sub = args.length > 1 ? CommandFacts.REDIS.get(spec.name() + "|" + Args.lower(args[1])) : null;
        return spec.flags().contains("noscript") || sub != null && sub.has("noscript")
                ? "ERR This Redis command is not allowed from script" : null;
    }
}
