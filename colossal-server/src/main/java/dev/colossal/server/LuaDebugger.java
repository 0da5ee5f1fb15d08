package dev.colossal.server;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Prototype;
import org.luaj.vm2.Varargs;

/**
 * One session of the Lua debugger, as redis-cli's {@code --ldb-sync-mode} drives it: the script of
 * the EVAL that follows SCRIPT DEBUG SYNC runs with this watching each new line ({@link
 * ScriptHook} reports them), and stops at its first line, at a breakpoint, after a step, or at
 * the line after {@code redis.breakpoint()}. Stopped, the debugger writes what it logged since it
 * last spoke, as one array of status lines, and reads the user's commands from the client's socket
 * itself, answering each the same way, until one lets the script go on. When the script ends it
 * writes {@code <endsession>}; the EVAL's reply follows and the connection is closed, as Redis
 * does it.
 *
 * <p>The texts redis-cli colours by their start ({@code <value>}, {@code <error>}, {@code * Stopped
 * at}, a source line's {@code ->} and {@code #}) and the short notices are Redis's, as clients show
 * them; the help is written in our words.
 */
final class LuaDebugger {

    /** The user aborted the script: an {@link Error}, so that the script's pcall does not catch it. */
    static final class Aborted extends Error {
        private static final long serialVersionUID = 1L;

        Aborted() {
            super("aborted", null, false, false);
        }
    }

    /** Redis's limit on breakpoints at once. */
    static final int MAX_BREAKPOINTS = 64;
    /** Redis's default {@code maxlen}, and the least one set: logged lines are cut past it. */
    static final int DEFAULT_MAXLEN = 256;
    private static final int LEAST_MAXLEN = 60;
    /** How long a read waits before checking whether the script was killed meanwhile. */
    private static final long POLL_MILLIS = 100;

    private static final List<String> HELP = List.of(
            "Lua debugger commands (a letter or the whole word):",
            "[h]elp               This list.",
            "[s]tep, [n]ext       Run the line shown and stop at the next one.",
            "[c]ontinue           Run to the next breakpoint, or to the end.",
            "[l]ist [line] [ctx]  Show the lines around [line] (0 or none: the current one),",
            "                     [ctx] of them each side (5 if not given).",
            "[w]hole              Show the whole script.",
            "[p]rint [var]        Show the locals of the current function, or one variable",
            "                     (a local of any caller, else a global such as KEYS or ARGV).",
            "[b]reak              Show the breakpoints.",
            "[b]reak <line>       Stop at <line>; -<line> takes that one away, 0 every one.",
            "[t]race              Show the calls that led here.",
            "[e]val <code>        Run Lua code in a function of its own and show its value.",
            "[r]edis <cmd>        Run a command as the script would, and show its reply.",
            "[m]axlen [len]       Cut logged values and replies to len (0: never); show it.",
            "[a]bort              Stop the script with an error. Its writes so far stay.",
            "",
            "From the script itself:",
            "redis.debug(...)     Log its arguments here.",
            "redis.breakpoint()   Stop at the next line, as a breakpoint would.");

    private final DebugChannel channel;
    private final ScriptRun run;
    private final String[] source;
    private final DebugRequests requests = new DebugRequests();
    private final byte[] readBuffer = new byte[4096];
    private final List<String> logs = new ArrayList<>();
    private final Set<Integer> breakpoints = new LinkedHashSet<>();
    private LuaSandbox lua;
    private ScriptHook hook;
    /** Stop at the next new line: set at the start and by step/next. */
    private boolean step = true;
    /** redis.breakpoint() was called: stop at the next new line. */
    private boolean luaBreakpoint;
    /** The debugger is answering the user: the Lua its eval runs is not watched. */
    private boolean answering;
    /** The {@code redis} command is running: its call is logged, as a step's are. */
    private boolean redisCommand;
    private int maxlen = DEFAULT_MAXLEN;
    private int currentLine;
    /**
     * A script let go on that runs this long without stopping is stopped (Redis's {@code timeout
     * reached, infinite loop?}), so that a {@code continue} into an endless loop gives the user the
     * prompt back rather than holding the server: {@code busy-reply-threshold}, as Redis's.
     */
    private final long timeoutNanos;
    /** When the script last went on (System.nanoTime). */
    private long resumedNanos = System.nanoTime();

    /**
     * @param channel where the user is
     * @param run     the script's run, whose client runs the {@code redis} command
     * @param code    the script's source, for its lines
     * @param timeoutMillis how long the script may run on after the user let it go before it stops
     */
    LuaDebugger(DebugChannel channel, ScriptRun run, byte[] code, long timeoutMillis) {
        this.channel = channel;
        this.run = run;
        this.timeoutNanos = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        String text = new String(code, StandardCharsets.UTF_8);
        if (text.endsWith("\n")) {
            text = text.substring(0, text.length() - 1);
        }
        this.source = text.split("\n", -1);
    }

    /** The script starts in {@code lua}, watched by {@code hook}. */
    void attach(LuaSandbox sandbox, ScriptHook scriptHook) {
        this.lua = sandbox;
        this.hook = scriptHook;
    }

    /** @return whether the script's redis.call()s are logged now: while stepping, and for the {@code redis} command */
    boolean logsCalls() {
        return step || redisCommand;
    }

    /** Logs {@code line} as it is. */
    void log(String line) {
        logs.add(line);
    }

    /** Logs {@code line} cut to {@code maxlen}, with {@code " ..."} after what was cut, as values and replies are. */
    void logCut(String line) {
        logs.add(maxlen != 0 && line.length() > maxlen ? line.substring(0, maxlen) + " ..." : line);
    }

    /** {@code redis.breakpoint()}: stop at the next line. */
    void breakAtNextLine() {
        luaBreakpoint = true;
    }

    /** {@code redis.debug(...)}: logs its arguments with the line it was called on. */
    void debug(Varargs values) {
        logCut("<debug> line " + hook.lastLine() + ": " + LuaRepr.all(values));
    }

    /**
     * The script is at the first instruction of a new line (Lua's line event): stops here if it
     * steps, a breakpoint or redis.breakpoint() says so, or it ran on too long, and answers the
     * user until told to go on.
     *
     * @throws Aborted the user aborted, or went away
     */
    void line(int line) {
        if (answering) {
            return;
        }
        currentLine = line;
        boolean atBreakpoint = breakpoints.contains(line);
        boolean timedOut = !step && !atBreakpoint && !luaBreakpoint && System.nanoTime() - resumedNanos >= timeoutNanos;
        if (!step && !atBreakpoint && !luaBreakpoint && !timedOut) {
            return;
        }
        String reason = luaBreakpoint ? "redis.breakpoint() called" : atBreakpoint ? "break point"
                : timedOut ? "timeout reached, infinite loop?" : "step over";
        step = false;
        luaBreakpoint = false;
        log("* Stopped at " + line + ", stop reason = " + reason);
        logSource(line);
        answer();
    }

    /** The script ended: the last logs and {@code <endsession>}; the EVAL's reply is for the caller to write. */
    void end() {
        log("<endsession>");
        try {
            send();
        } catch (IOException gone) {
            // the client went away: its EVAL reply has nowhere to go either
        }
        channel.release();
    }

    private void answer() {
        answering = true;
        try {
            send();
            while (true) {
                String[] cmd = nextCommand();
                if (cmd.length == 0) {
                    continue;
                }
                if (command(cmd)) {
                    return;
                }
                send();
            }
        } catch (IOException | ProtocolException gone) {
            throw new Aborted();
        } finally {
            answering = false;
            resumedNanos = System.nanoTime();
        }
    }

    /** Runs one of the user's commands. @return whether the script goes on */
    private boolean command(String[] cmd) {
        switch (cmd[0].toLowerCase(java.util.Locale.ROOT)) {
            case "s", "step", "n", "next" -> {
                step = true;
                return true;
            }
            case "c", "continue" -> {
                return true;
            }
            case "a", "abort" -> throw new Aborted();
            case "h", "help" -> HELP.forEach(this::log);
            case "l", "list" -> list(cmd.length > 1 ? number(cmd[1]) : 0, cmd.length > 2 ? number(cmd[2]) : 5);
            case "w", "whole" -> list(1, 1_000_000);
            case "p", "print" -> {
                if (cmd.length == 2) {
                    print(cmd[1]);
                } else {
                    printLocals();
                }
            }
            case "b", "break" -> breakpoints(cmd);
            case "t", "trace" -> trace();
            case "e", "eval" -> eval(String.join(" ", java.util.Arrays.copyOfRange(cmd, 1, cmd.length)));
            case "m", "maxlen" -> maxlen(cmd);
            case "r", "redis" -> {
                if (cmd.length > 1) {
                    redis(cmd);
                } else {
                    unknown();
                }
            }
            default -> unknown();
        }
        return false;
    }

    private void unknown() {
        log("<error> Unknown Redis Lua debugger command or wrong number of arguments.");
    }

    /** @return the next whole command from the client, waiting for it */
    private String[] nextCommand() throws IOException, ProtocolException {
        ByteBuffer into = ByteBuffer.wrap(readBuffer);
        while (true) {
            String[] words = requests.next();
            if (words != null) {
                return words;
            }
            if (run.killRequested()) {
                throw new ScriptHook.Killed(); // SCRIPT KILL, or the server closing
            }
            into.clear();
            int n = channel.read(into, POLL_MILLIS);
            if (n < 0) {
                throw new IOException("the client closed the connection");
            }
            requests.add(readBuffer, n);
        }
    }

    /** Writes the lines logged since the last time, as one array of status replies, and forgets them. */
    private void send() throws IOException {
        StringBuilder sb = new StringBuilder().append('*').append(logs.size()).append("\r\n");
        for (String line : logs) {
            // a status reply is one line: a source line's stray \r must not end it early
            sb.append('+').append(line.replace('\r', ' ').replace('\n', ' ')).append("\r\n");
        }
        logs.clear();
        channel.send(sb.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** Logs source line {@code line}, marked {@code ->} if the script is on it and {@code #} if it has a breakpoint. */
    private void logSource(int line) {
        boolean current = line == currentLine;
        boolean bp = breakpoints.contains(line);
        String mark = current ? (bp ? "->#" : "-> ") : (bp ? "  #" : "   ");
        String text = line >= 1 && line <= source.length ? source[line - 1] : "<out of range source code line>";
        log(mark + String.format("%-3d", line) + " " + text);
    }

    /** Logs the lines within {@code context} of {@code around} (0 or less: the current line). */
    private void list(int around, int context) {
        int at = around <= 0 ? currentLine : around;
        for (int line = 1; line <= source.length; line++) {
            if (Math.abs(line - at) <= context) {
                logSource(line);
            }
        }
    }

    private void breakpoints(String[] cmd) {
        if (cmd.length == 1) {
            if (breakpoints.isEmpty()) {
                log("No breakpoints set. Use 'b <line>' to add one.");
            } else {
                log(breakpoints.size() + " breakpoints set:");
                breakpoints.forEach(this::logSource);
            }
            return;
        }
        for (int i = 1; i < cmd.length; i++) {
            int line;
            try {
                line = Integer.parseInt(cmd[i]);
            } catch (NumberFormatException e) {
                log("Invalid argument:'" + cmd[i] + "'");
                continue;
            }
            if (line == 0) {
                breakpoints.clear();
                log("All breakpoints removed.");
            } else if (line > 0) {
                if (line <= source.length && breakpoints.size() < MAX_BREAKPOINTS && breakpoints.add(line)) {
                    list(line, 1);
                } else {
                    log("Wrong line number.");
                }
            } else if (breakpoints.remove(-line)) {
                log("Breakpoint removed.");
            } else {
                log("No breakpoint in the specified line.");
            }
        }
    }

    private void maxlen(String[] cmd) {
        if (cmd.length > 1) {
            int len = number(cmd[1]);
            maxlen = len != 0 && len < LEAST_MAXLEN ? LEAST_MAXLEN : Math.max(len, 0);
        }
        log(maxlen == 0 ? "<value> replies are unlimited." : "<value> replies are truncated at " + maxlen + " bytes.");
    }

    /** Logs every local of the function the script is stopped in. */
    private void printLocals() {
        int before = logs.size();
        int level = innermostLua();
        if (level >= 0) {
            Prototype p = hook.code(level);
            LuaValue[] registers = hook.registers(level);
            int pc = hook.pc(level);
            for (int n = 1; ; n++) {
                LuaString name = p.getlocalname(n, pc);
                if (name == null) {
                    break;
                }
                // the compiler's own ("(for index)", "(for limit)", ...) too, as Lua 5.1 lists them
                logCut("<value> " + name.tojstring() + " = " + LuaRepr.of(value(registers, n - 1)));
            }
        }
        if (logs.size() == before) {
            log("No local variables in the current context.");
        }
    }

    /** Logs the value of the innermost local named {@code name} in any active function, else of that global. */
    private void print(String name) {
        for (int level = 0; level < hook.frameCount(); level++) {
            Prototype p = hook.code(level);
            if (p == null) {
                continue;
            }
            int pc = hook.pc(level);
            for (int n = 1; ; n++) {
                LuaString local = p.getlocalname(n, pc);
                if (local == null) {
                    break;
                }
                if (local.tojstring().equals(name)) {
                    logCut("<value> " + LuaRepr.of(value(hook.registers(level), n - 1)));
                    return;
                }
            }
        }
        LuaValue global = lua.global(name);
        if (global.isnil()) {
            log("No such variable.");
        } else {
            logCut("<value> " + LuaRepr.of(global));
        }
    }

    private static LuaValue value(LuaValue[] registers, int i) {
        return registers != null && i < registers.length && registers[i] != null ? registers[i] : LuaValue.NIL;
    }

    /** @return the level of the innermost function that is Lua code (0 the innermost of all), or -1 */
    private int innermostLua() {
        for (int level = 0; level < hook.frameCount(); level++) {
            if (hook.code(level) != null) {
                return level;
            }
        }
        return -1;
    }

    /** Logs each Lua function active, innermost first, by the name its caller called it by, with its line. */
    private void trace() {
        boolean first = true;
        for (int level = 0; level < hook.frameCount(); level++) {
            if (hook.code(level) == null) {
                continue;
            }
            log((first ? "In " : "From ") + hook.calledName(level) + ":");
            logSource(hook.line(level));
            first = false;
        }
    }

    /** Runs {@code code} (as an expression if it is one) and logs its first value, or its error. */
    private void eval(String code) {
        try {
            logCut("<retval> " + LuaRepr.of(lua.debugEval(code)));
        } catch (LuaError e) {
            String text = ScriptCommands.errorText(e, lua::reword);
            log("<error> " + (text.startsWith("ERR ") ? text.substring(4) : text));
        }
    }

    /** Runs a command as the script's redis.call would, logged as a step logs it. */
    private void redis(String[] cmd) {
        LuaValue[] args = new LuaValue[cmd.length - 1];
        for (int i = 1; i < cmd.length; i++) {
            args[i - 1] = LuaValue.valueOf(cmd[i]);
        }
        redisCommand = true;
        try {
            run.calls.call(run, LuaValue.varargsOf(args), true);
        } catch (LuaError failed) {
            // logged as it failed
        } finally {
            redisCommand = false;
        }
    }

    /** A number argument as C's {@code atoi} reads it: 0 for what is none. */
    private static int number(String s) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("^\\s*[-+]?\\d+").matcher(s);
        if (!m.find()) {
            return 0;
        }
        try {
            return Integer.parseInt(m.group().strip());
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
