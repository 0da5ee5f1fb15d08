package dev.colossal.server;

import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.locks.Lock;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;

/**
 * EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT, as Redis 7.0 answers them.
 *
 * <p>Atomicity: a script holds the {@linkplain KeyLocks#multiStripe() multi-stripe lock} and the
 * stripes of its declared KEYS from its first instruction to its reply, so no other client's write
 * lands between its commands on those keys, nor on any key it touches undeclared (that key's
 * stripe is taken when a command first names it and kept to the end; taken out of the global
 * order, it cannot deadlock, as the script holds the multi-stripe lock: see {@link KeyLocks}). As
 * with EXEC, other clients' reads are not held off. Only one script runs at a time in the whole
 * server, as in Redis.
 *
 * <p>A runaway script is stopped by SCRIPT KILL from any connection, if it has not written; one
 * that wrote runs on, as in Redis. The script runs on its client's event loop, whose other
 * connections wait for it (Redis answers them BUSY after busy-reply-threshold); new connections go
 * to another loop meanwhile ({@link RespServer}), so a SCRIPT KILL can always get through.
 * Connections on other loops are served as usual, where Redis answers BUSY: only a command that
 * would wait for the script's multi-stripe lock (another script, MSET, EXEC) is answered BUSY
 * once the script has run busy-reply-threshold ({@link ServerContext#busyReplyMillis}); one that needs a key's stripe the script holds
 * waits for it.
 */
final class ScriptCommands {

    private static final List<String> SCRIPT_HELP = List.of(
            "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", "DEBUG (YES|SYNC|NO)",
            "    Set the debug mode for subsequent scripts executed.", "EXISTS <sha1> [<sha1> ...]",
            "    Return information about the existence of the scripts in the script cache.", "FLUSH [ASYNC|SYNC]",
            "    Flush the Lua scripts cache. Very dangerous on replicas.",
            "    When called without the optional mode argument, the behavior is determined by the",
            "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
            "    * ASYNC: Asynchronously flush the scripts cache.", "    * SYNC: Synchronously flush the scripts cache.",
            "KILL", "    Kill the currently executing Lua script.", "LOAD <script>",
            "    Load a script into the scripts cache without executing it.", "HELP", "    Prints this help.");

    /** Redis's busy-reply-threshold (lua-time-limit) default: see {@link KeyLocks.MultiStripeLock}. */
    static final long BUSY_MILLIS = 5000;

    private final ServerContext ctx;
    private final ScriptCalls calls;
    private final ScriptCache cache = new ScriptCache();
    /** The script running, for SCRIPT KILL on other threads; at most one, under the multi-stripe lock. */
    private volatile ScriptRun running;

    ScriptCommands(ServerContext ctx, CommandTable table) {
        this.ctx = ctx;
        this.calls = new ScriptCalls(table, ctx.dbs.locks(), ctx);
        ctx.dbs.locks().multiStripe().busyWhen(() -> {
            ScriptRun run = running;
            return run != null && run.runningMillis() >= ctx.busyReplyMillis;
        });
    }

    void register(CommandTable t) {
        List<String> flags = List.of("noscript", "stale", "skip_monitor", "no_mandatory_keys", "movablekeys");
        List<String> readOnly = List.of("readonly", "noscript", "stale", "skip_monitor", "no_mandatory_keys",
                "movablekeys");
        t.add("eval", -3, flags, 0, 0, 0, (c, a, r) -> eval(c, a, r, false, false));
        t.add("evalsha", -3, flags, 0, 0, 0, (c, a, r) -> eval(c, a, r, true, false));
        t.add("eval_ro", -3, readOnly, 0, 0, 0, (c, a, r) -> eval(c, a, r, false, true));
        t.add("evalsha_ro", -3, readOnly, 0, 0, 0, (c, a, r) -> eval(c, a, r, true, true));
        t.add("script", -2, List.of(), 0, 0, 0, this::script);
    }

    /** Whether {@code name} is one of the commands that run a script (EXEC locks for them: see {@link Transactions}). */
    static boolean runsScript(byte[] name) {
        return Args.is(name, "EVAL") || Args.is(name, "EVALSHA") || Args.is(name, "EVAL_RO")
                || Args.is(name, "EVALSHA_RO") || Args.is(name, "FCALL") || Args.is(name, "FCALL_RO");
    }

    /** Stops the script running, if any, whether it wrote or not: the server is closing. */
    void abortRunning() {
        ScriptRun run = running;
        if (run != null) {
            run.abort();
        }
    }

    /** @return the script running now, or null */
    ScriptRun running() {
        return running;
    }

    int cachedScripts() {
        return cache.size();
    }

    long cachedBytes() {
        return cache.bytes();
    }

    private void eval(Client c, byte[][] a, Reply r, boolean bySha, boolean readOnly) {
        if (c.luaDebugRefused) {
            c.luaDebugRefused = false;
            r.error(NO_FORKED_DEBUGGING);
            return;
        }
        if (bySha && c.luaDebug) {
            r.error("ERR Please use EVAL instead of EVALSHA for debugging");
            return;
        }
        ScriptCache.Script script = bySha ? cache.get(a[1]) : null;
        if (bySha && script == null) {
            r.error("NOSCRIPT No matching script. Please use EVAL.");
            return;
        }
        OptionalLong parsed = Args.toLong(a[2]);
        if (parsed.isEmpty()) {
            r.error(Errors.NOT_INTEGER);
            return;
        }
        long numKeys = parsed.getAsLong();
        if (numKeys < 0) {
            r.error("ERR Number of keys can't be negative");
            return;
        }
        if (numKeys > a.length - 3) {
            r.error("ERR Number of keys can't be greater than number of args");
            return;
        }
        if (script == null) {
            script = cache.load(a[1]);
        }
        ScriptShebang flags = script.shebang();
        if (flags.declared() && refusedForMemory(flags.noWrites(), flags.allowOom())) {
            r.error(OomRefusal.ERROR);
            return;
        }
        if (readOnly && flags.declared() && !flags.noWrites()) {
            r.error("ERR Can not execute a script with write flag using *_ro command.");
            return;
        }
        byte[][] keys = Arrays.copyOfRange(a, 3, 3 + (int) numKeys);
        byte[][] argv = Arrays.copyOfRange(a, 3 + (int) numKeys, a.length);
        ScriptCache.Script s = script;
        boolean debug = c.luaDebug && !c.inExec;
        c.luaDebug = false; // one session: the connection closes when it ends
        runAtomically(c, keys, script.sha(), readOnly || flags.noWrites(), flags.allowOom(), null, debug ? a[1] : null, r,
                (lua, run) -> lua.run(run, s.code(), keys, argv));
    }

    /**
     * @return whether a script or function that declares flags ({@code noWrites}, {@code allowOom})
     *     is refused {@link OomRefusal.ERROR} before it runs: one that may write without
     *     {@code allow-oom}, while the data is over {@code maxmemory} under {@code noeviction}
     */
    boolean refusedForMemory(boolean noWrites, boolean allowOom) {
        return !noWrites && !allowOom && ctx.dbs.memoryFull();
    }

    /**
     * @return whether EVAL's script, EVALSHA's cached one or FCALL's function (by {@code command},
     *         with its request {@code args}) declares {@code no-writes}: CLIENT PAUSE WRITE lets it run
     */
    boolean declaresNoWrites(String command, byte[][] args) {
        int flags = declaredFlags(command, args);
        return flags != UNKNOWN && (flags & NO_WRITES) != 0;
    }

    /**
     * @return whether EVAL's script (by its shebang), EVALSHA's cached one or FCALL's function
     *         declares flags without {@code no-writes}: Redis counts such a call a write before it
     *         runs (a replica refuses it READONLY), where a flagless script only fails at its first write
     */
    boolean declaresWrites(String command, byte[][] args) {
        int flags = declaredFlags(command, args);
        return flags != UNKNOWN && (flags & DECLARED) != 0 && (flags & NO_WRITES) == 0;
    }

    private static final int UNKNOWN = -1;
    private static final int DECLARED = 1;
    private static final int NO_WRITES = 2;

    /**
     * @return what the script or function a call runs declares, as {@link #DECLARED} and {@link #NO_WRITES}
     *         bits (a function always declares, if only none), or {@link #UNKNOWN}: not a script's call, a
     *         script not cached, a shebang that does not parse (refused with its error as it runs)
     */
    private int declaredFlags(String command, byte[][] args) {
        if (args.length < 2) {
            return UNKNOWN;
        }
        switch (command) {
            case "eval" -> {
                try {
                    ScriptShebang flags = ScriptShebang.parse(args[1]);
                    return (flags.declared() ? DECLARED : 0) | (flags.noWrites() ? NO_WRITES : 0);
                } catch (RuntimeException badShebang) {
                    return UNKNOWN;
                }
            }
            case "evalsha" -> {
                ScriptCache.Script s = cache.get(args[1]);
                return s == null ? UNKNOWN : (s.shebang().declared() ? DECLARED : 0) | (s.shebang().noWrites() ? NO_WRITES : 0);
            }
            case "fcall" -> {
                String name = new String(args[1], java.nio.charset.StandardCharsets.UTF_8);
                FunctionLibraries.Library lib = ctx.functions.ofFunction(name);
                return lib == null ? UNKNOWN : DECLARED | (FunctionLibraries.function(lib, name).noWrites() ? NO_WRITES : 0);
            }
            default -> {
                return UNKNOWN;
            }
        }
    }

    /**
     * Runs {@code body} as a script runs: holding the multi-stripe lock and the stripes of
     * {@code keys} to its end, stoppable by SCRIPT KILL, its value the reply, its failure Redis's
     * error text ending {@code script: <name>, on @<chunk>:<line>.}.
     *
     * @param fcall FCALL's request for a function ({@code user_function}), null for a script ({@code user_script})
     */
    void runAtomically(Client c, byte[][] keys, String name, boolean readOnly, boolean allowOom, byte[][] fcall, Reply r,
                       java.util.function.BiFunction<LuaSandbox, ScriptRun, LuaValue> body) {
        runAtomically(c, keys, name, readOnly, allowOom, fcall, null, r, body);
    }

    /**
     * {@link #runAtomically(Client, byte[][], String, boolean, boolean, byte[][], Reply, java.util.function.BiFunction)}
     * in a session of the {@link LuaDebugger} if {@code debugSource}, the script's code, is given:
     * the session's last words go before the reply, and the connection is closed after it.
     */
    private void runAtomically(Client c, byte[][] keys, String name, boolean readOnly, boolean allowOom, byte[][] fcall,
                               byte[] debugSource, Reply r,
                               java.util.function.BiFunction<LuaSandbox, ScriptRun, LuaValue> body) {
        String chunk = fcall == null ? "user_script" : "user_function";
        Lock multi = ctx.dbs.locks().multiStripe();
        multi.lock();
        Lock[] stripes = ctx.dbs.locks().locks(keys);
        StringCommands.lockAll(stripes);
        ScriptRun run = new ScriptRun(c, name, readOnly, calls);
        run.refuseFirstWrite = !allowOom && ctx.dbs.memoryFull();
        run.inner.scriptKeys = keys;
        run.command = fcall;
        run.inner.reply.openSpare();
        if (debugSource != null) {
            run.debugger = new LuaDebugger(c.debugChannel, run, debugSource, ctx.busyReplyMillis);
            c.closeAfterReply = true;
        }
        running = run;
        try {
            LuaSandbox lua = LuaSandbox.ofThisThread();
            String where = " script: " + name + ", on @" + chunk + ":";
            try {
                LuaValue result;
                try {
                    result = body.apply(lua, run);
                } finally {
                    if (run.debugger != null) {
                        run.debugger.end();
                    }
                }
                LuaResult.write(result, r, run.inner.reply.protocol);
            } catch (LuaDebugger.Aborted aborted) {
                r.error("ERR script aborted for user request" + where + lua.lastLine() + ".");
            } catch (ScriptHook.Killed killed) {
                r.error("ERR Script killed by user with SCRIPT KILL..." + where + lua.lastLine() + ".");
            } catch (LuaError e) {
                r.error(errorText(e, lua::reword) + where + lua.lastLine() + ".");
            } catch (OutOfMemoryError full) {
                // The script's own garbage, unreachable once it stopped: the server goes on. Lua's words.
                r.error("ERR " + chunk + ":" + lua.lastLine() + ": not enough memory" + where + lua.lastLine() + ".");
            } catch (StackOverflowError deep) {
                // Lua calls are bounded (ScriptHook.MAX_DEPTH), but Java recursion inside a library
                // (a deeply nested table given to a command, string.gsub calling back) is not.
                r.error("ERR " + chunk + ":" + lua.lastLine() + ": stack overflow" + where + lua.lastLine() + ".");
            }
        } finally {
            running = null;
            StringCommands.unlockAll(run.undeclared.toArray(Lock[]::new));
            StringCommands.unlockAll(stripes);
            multi.unlock();
            run.inner.reply.errors = 0; // the script's own reply is the error counted, as in Redis
            run.inner.reply.errorKinds = null;
            run.inner.publish(ctx.stats);
            run.inner.reply.close();
        }
    }

    /** LuaJ's wording of a call of something that is no function: its type alone. */
    private static final java.util.regex.Pattern CALLED_TYPE =
            java.util.regex.Pattern.compile("attempt to call (nil|boolean|number|string|table|userdata|thread)(?=$|\\s)");

    /**
     * The error reply of a failed script before Redis's {@code script: ...} suffix: a command's
     * error as it is, an {@code {err=...}} table's text as it is, anything else after {@code ERR}
     * (LuaJ's own runtime errors reworded to Lua's {@code user_script:N: } position).
     */
    static String errorText(LuaError e) {
        return errorText(e, java.util.function.UnaryOperator.identity());
    }

    /**
     * {@link #errorText(LuaError)} with LuaJ's own runtime texts passed through {@code reword}
     * ({@link LuaSandbox#reword}: the variable Lua 5.1 names, from the failed instruction).
     */
    static String errorText(LuaError e, java.util.function.UnaryOperator<String> reword) {
        if (e instanceof ScriptCalls.CommandError) {
            return e.getMessageObject().tojstring();
        }
        LuaValue m = e.getMessageObject();
        if (m instanceof LuaTable t && t.rawget(LuaReplies.ERR).isstring()) {
            return t.rawget(LuaReplies.ERR).tojstring();
        }
        if (m == null || m.isnil()) {
            return "ERR nil";
        }
        String s = luaText(m.tojstring());
        return "ERR " + reword.apply(s);
    }

    /** LuaJ's form of a runtime error's text in Lua's: {@code user_script:N: } position, a call of no function named as Lua 5.1 names it. */
    static String luaText(String s) {
        if (s.startsWith("@user_script:") || s.startsWith("@user_function:") || s.startsWith("@ldb_eval:")) { // LuaJ's "@user_script:3 attempt to ...\n"
            int space = s.indexOf(' ');
            s = s.substring(1, space) + ": " + s.substring(space + 1).strip();
        }
        // LuaJ names only the type of what was called ("attempt to call nil"); Lua 5.1, with no
        // variable to name, says "attempt to call a nil value", which clients and tests match
        return CALLED_TYPE.matcher(s).replaceFirst("attempt to call a $1 value");
    }

    /** Why SCRIPT DEBUG YES, and the EVAL that follows it, are refused. */
    static final String NO_FORKED_DEBUGGING = "ERR SCRIPT DEBUG YES (redis-cli --ldb) is not supported: this server"
            + " cannot discard a debugged script's writes as Redis's forked session does, so the script was not run."
            + " Use SCRIPT DEBUG SYNC (redis-cli --ldb-sync-mode), which keeps them";

    /**
     * SCRIPT DEBUG YES|SYNC|NO. SYNC has the client's next EVAL run in the {@link LuaDebugger}
     * (redis-cli --ldb-sync-mode), keeping its writes, as Redis's synchronous mode does. YES is
     * refused: Redis forks the debugged script so that its writes are thrown away and the server
     * goes on, and this server cannot undo a script's writes soundly, nor let others go on while one
     * is stopped half done; running it anyway would keep writes the user asked to be discarded. As
     * redis-cli --ldb sends its EVAL whatever SCRIPT DEBUG YES answered, that EVAL is refused too.
     */
    private static void debug(Client c, byte[][] a, Reply r) {
        if (a.length != 3) {
            r.error(Errors.arity("script|debug"));
        } else if (c.inExec) {
            r.error("ERR SCRIPT DEBUG must be called outside MULTI");
        } else if (Args.is(a[2], "NO")) {
            c.luaDebug = false;
            c.luaDebugRefused = false;
            r.ok();
        } else if (Args.is(a[2], "YES")) {
            c.luaDebug = false;
            c.luaDebugRefused = true;
            r.error(NO_FORKED_DEBUGGING);
        } else if (Args.is(a[2], "SYNC")) {
            c.luaDebugRefused = false;
            if (c.debugChannel == null) {
                r.error("ERR SCRIPT DEBUG SYNC needs a plain TCP or Unix socket connection: the debugger cannot speak TLS");
                return;
            }
            c.luaDebug = true;
            r.ok();
        } else {
            r.error("ERR Use SCRIPT DEBUG YES/SYNC/NO");
        }
    }

    private void script(Client c, byte[][] a, Reply r) {
        byte[] sub = a[1];
        if (Args.is(sub, "LOAD")) {
            if (a.length != 3) {
                r.error(Errors.arity("script|load"));
                return;
            }
            r.bulk(cache.load(a[2]).sha());
        } else if (Args.is(sub, "EXISTS")) {
            if (a.length < 3) {
                r.error(Errors.arity("script|exists"));
                return;
            }
            r.array(a.length - 2);
            for (int i = 2; i < a.length; i++) {
                r.integer(cache.get(a[i]) != null ? 1 : 0);
            }
        } else if (Args.is(sub, "FLUSH")) {
            if (a.length > 3 || a.length == 3 && !Args.is(a[2], "SYNC") && !Args.is(a[2], "ASYNC")) {
                r.error("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
                return;
            }
            cache.flush();
            r.ok();
        } else if (Args.is(sub, "KILL")) {
            if (a.length != 2) {
                r.error(Errors.arity("script|kill"));
                return;
            }
            kill(r);
        } else if (Args.is(sub, "DEBUG")) {
            debug(c, a, r);
        } else if (Args.is(sub, "HELP")) {
            if (a.length != 2) {
                r.error(Errors.arity("script|help"));
                return;
            }
            r.array(SCRIPT_HELP.size());
            SCRIPT_HELP.forEach(r::simple);
        } else {
            r.error(Errors.unknownSubcommand(sub, "SCRIPT"));
        }
    }

    /** SCRIPT KILL and FUNCTION KILL: stops the script or function running, if it has not written. */
    void kill(Reply r) {
        ScriptRun run = running;
        if (run == null) {
            r.error("NOTBUSY No scripts in execution right now.");
        } else if (run.kill() == ScriptRun.Kill.UNKILLABLE) {
            r.error("UNKILLABLE Sorry the script already executed write commands against the dataset. You can either"
                    + " wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.");
        } else {
            r.ok();
        }
    }
}
