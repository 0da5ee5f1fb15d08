package dev.colossal.server;

import org.luaj.vm2.Lua;
import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaFunction;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Prototype;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.DebugLib;

/**
 * LuaJ's one way into its interpreter loop: it calls a {@link DebugLib}'s {@code onInstruction}
 * before every instruction and {@code onCall}/{@code onReturn} around every Lua function. This
 * subclass uses them to stop a script SCRIPT KILL asked to stop, to bound the depth of Lua calls
 * (deep recursion is an error reply, not a {@link StackOverflowError} on an event loop), and to
 * know the line a script is at, for error texts as Redis words them ({@code user_script:3: ...}),
 * and, under SCRIPT DEBUG, to give the {@link LuaDebugger} Lua's line events and the active
 * functions' code, registers and lines. The debug library itself is never shown to scripts.
 */
final class ScriptHook extends DebugLib {

    /** Lua calls deep, as Lua 5.1's C stack limit (LUAI_MAXCCALLS) bounds them. */
    static final int MAX_DEPTH = 200;

    private final Prototype[] frames = new Prototype[MAX_DEPTH + 2];
    private final int[] lines = new int[MAX_DEPTH + 2];
    /** Each frame's last instruction, to tell a return that is a tail call. */
    private final int[] pcs = new int[MAX_DEPTH + 2];
    /** Whether each frame was entered by a tail call, whose caller Lua does not know: the debugger's trace names none. */
    private final boolean[] tailEntered = new boolean[MAX_DEPTH + 2];
    /**
     * The line of a tail call ({@code return f(x)}) whose frame has just returned, until the next
     * call or instruction; else -1. LuaJ leaves the frame before it calls {@code f}, where Lua 5.1
     * calls a C function from the frame: its errors name that line.
     */
    private int tailCallLine = -1;
    /** Each Lua frame's registers, for naming what a failed instruction met ({@link LuaCulprit}). */
    private final LuaValue[][] stacks = new LuaValue[MAX_DEPTH + 2][];
    /**
     * Where the last error arose: the function, instruction and registers of the innermost Lua
     * frame when LuaJ asked for a traceback, or of the tail call that left its frame before the
     * call failed. References kept, nothing worked out, until the error is worded.
     */
    private Prototype faultCode;
    private int faultPc;
    private LuaValue[] faultStack;
    /** The line of the tail call the last error arose in, or -1 if it arose in a frame. */
    private int faultTailLine = -1;
    private int depth;
    private int lastLine;
    private volatile ScriptRun run;
    /**
     * The debugging session watching the script, told of each new line; null, as for every script
     * but one run under SCRIPT DEBUG, costs each instruction one field read and no more.
     */
    private LuaDebugger debugger;

    /** Thrown through the script when it is killed: an {@link Error}, so that Lua's pcall does not catch it. */
    static final class Killed extends Error {
        private static final long serialVersionUID = 1L;

        Killed() {
            super("killed", null, false, false);
        }
    }

    /** The chunk's name in error positions: {@code user_script}, or {@code user_function} for a function library. */
    private String chunk = "user_script";

    /** Starts watching {@code r}, a new script on this thread. */
    void start(ScriptRun r) {
        start(r, "user_script");
    }

    /** Starts watching {@code r}, code of chunk {@code chunk} ({@code user_function} for a library's), on this thread. */
    void start(ScriptRun r, String chunk) {
        this.chunk = chunk;
        depth = 0;
        lastLine = 0;
        faultCode = null;
        debugger = r.debugger;
        run = r;
    }

    /** @return the script running on this thread, or null */
    ScriptRun run() {
        return run;
    }

    void stop() {
        run = null;
        debugger = null;
        depth = 0;
    }

    /** @return the debugging session watching the script running, or null */
    LuaDebugger debugger() {
        return debugger;
    }

    @Override
    public void onCall(LuaClosure c, Varargs varargs, LuaValue[] stack) {
        // Counted past the bound and refused at the next instruction: an error thrown here would
        // skip LuaJ's onReturn, and the depth would never come back down.
        if (depth < frames.length) {
            frames[depth] = c.p;
            stacks[depth] = stack;
            pcs[depth] = -1; // no instruction run yet: the first one is a new line
            tailEntered[depth] = tailCallLine >= 0; // its caller's frame has just left by a tail call
        }
        depth++;
        tailCallLine = -1;
    }

    @Override
    public void onCall(LuaFunction f) {
        // LuaJ calls this for the few library functions that call back into Lua (pcall), and
        // onReturn after them: a frame with no prototype, which has no line.
        if (depth < frames.length) {
            frames[depth] = null;
        }
        depth++;
        tailCallLine = -1;
    }

    @Override
    public void onReturn() {
        int at = depth - 1;
        Prototype p = at < frames.length ? frames[at] : null;
        tailCallLine = -1;
        if (p != null) {
            if (pcs[at] >= 0 && Lua.GET_OPCODE(p.code[pcs[at]]) == Lua.OP_TAILCALL) {
                tailCalled(p, at);
            }
            stacks[at] = null; // a finished frame's registers are not kept alive
        }
        depth--;
    }

    /** Notes frame {@code at}, leaving by a tail call, as where an error of that call arose. */
    private void tailCalled(Prototype p, int at) {
        tailCallLine = lines[at];
        faultCode = p;
        faultPc = pcs[at];
        faultStack = stacks[at];
        faultTailLine = lines[at];
    }

    @Override
    public void onInstruction(int pc, Varargs v, int top) {
        int at = depth - 1;
        int[] info = frames[at].lineinfo;
        int line = info != null && pc < info.length ? info[pc] : 0;
        // Lua's line event: a function's first instruction, a jump back (a loop's next turn), a new line
        boolean newLine = debugger != null && (pcs[at] < 0 || pc <= pcs[at] || line != lines[at]);
        lastLine = line;
        lines[at] = line;
        pcs[at] = pc;
        tailCallLine = -1;
        ScriptRun r = run;
        if (r != null && r.killRequested()) {
            // after the line is noted: a kill that comes before the first instruction names line 1, as Redis's
            throw new Killed();
        }
        if (depth > MAX_DEPTH) {
            throw new LuaError(LuaValue.valueOf(where(1) + "stack overflow"));
        }
        if (newLine) {
            debugger.line(line);
        }
    }

    /** @return how many functions are active, Lua's and the library functions that call back into Lua */
    int frameCount() {
        return Math.min(depth, frames.length);
    }

    /** @return the code of the function {@code level} calls out (0 the innermost), null for a library function */
    Prototype code(int level) {
        return frames[frameCount() - 1 - level];
    }

    /** @return the registers of the Lua function {@code level} calls out */
    LuaValue[] registers(int level) {
        return stacks[frameCount() - 1 - level];
    }

    /** @return the instruction the Lua function {@code level} calls out is at */
    int pc(int level) {
        return Math.max(pcs[frameCount() - 1 - level], 0);
    }

    /** @return the line the Lua function {@code level} calls out is at */
    int line(int level) {
        return lines[frameCount() - 1 - level];
    }

    /**
     * @return the name the Lua function {@code level} calls out was called by, as Lua names a
     *     function from its caller's call instruction ({@code add} for {@code local function add});
     *     {@code top level} for the script's body, or a function whose name its caller does not give
     *     (one entered by a tail call, one a library function called)
     */
    String calledName(int level) {
        int at = frameCount() - 1 - level;
        Prototype caller = at > 0 ? frames[at - 1] : null;
        if (caller == null || pcs[at - 1] < 0 || tailEntered[at]) {
            return "top level";
        }
        int i = caller.code[pcs[at - 1]];
        int op = Lua.GET_OPCODE(i);
        if (op != Lua.OP_CALL && op != Lua.OP_TAILCALL) {
            return "top level";
        }
        String named = LuaCulprit.name(caller, pcs[at - 1], Lua.GETARG_A(i));
        return named == null ? "top level" : named.substring(named.indexOf('\'') + 1, named.length() - 1);
    }

    /** Names the chunk of error positions {@code chunk} (the debugger's eval is {@code ldb_eval}). @return the name it had */
    String chunk(String name) {
        String was = chunk;
        chunk = name;
        return was;
    }

    /** Puts back the line the script was last at, after the debugger ran Lua of its own. */
    void lastLine(int line) {
        lastLine = line;
    }

    @Override
    public String traceback(int level) {
        noteFault();
        return ""; // LuaJ appends this to runtime errors' texts; scripts' errors carry no traceback in Redis
    }

    /**
     * Lua's error handler for the errors LuaJ raises itself (the sandbox makes it LuaJ's
     * {@code errorfunc}, which LuaJ calls where the error arose, and whose answer becomes the
     * error's text): the text as Lua 5.1 words it, so that a script's {@code pcall} sees that too.
     * An error value a script gave (error's) is kept as it is by LuaJ.
     */
    LuaValue raised(LuaValue message) {
        noteFault();
        return LuaValue.valueOf(reword(ScriptCommands.luaText(message.tojstring())));
    }

    /**
     * Notes where an error arose: LuaJ asks in the frame the error arose in, before it leaves it
     * (a tail call's failure is asked of its caller's frame, which is not where it arose).
     */
    private void noteFault() {
        if (tailCallLine < 0 && depth > 0 && depth <= frames.length && frames[depth - 1] != null) {
            faultCode = frames[depth - 1];
            faultPc = pcs[depth - 1];
            faultStack = stacks[depth - 1];
            faultTailLine = -1;
        }
    }

    /**
     * @param text the last error's text, after a {@code user_script:N: } position if it has one
     * @return it as Lua 5.1 words it ({@link LuaCulprit}); a failed tail call, which LuaJ makes
     *     outside the frame and so gives no position, with the position of its line
     */
    String reword(String text) {
        java.util.regex.Matcher m = POSITION.matcher(text);
        String position = m.lookingAt() ? m.group() : "";
        String body = text.substring(position.length());
        String worded = LuaCulprit.reword(body, faultCode, faultPc, faultStack);
        if (worded.equals(body)) {
            return text;
        }
        return (position.isEmpty() && faultTailLine >= 0 ? chunk + ":" + faultTailLine + ": " : position) + worded;
    }

    private static final java.util.regex.Pattern POSITION = java.util.regex.Pattern.compile("user_(script|function):\\d+: ");

    /** @return the line the script was last at, in the innermost Lua function: Redis's {@code on @user_script:N} */
    int lastLine() {
        return lastLine;
    }

    /**
     * @param level 1 for the Lua function running, 2 for its caller, as Lua's {@code error} counts
     * @return {@code user_script:N: }, Lua's position prefix, or "" past the outermost function
     */
    String where(int level) {
        if (tailCallLine >= 0) { // level 1 is the frame the tail call left, 2 the one below it
            if (level == 1) {
                return chunk + ":" + tailCallLine + ": ";
            }
            level--;
        }
        int at = Math.min(depth, MAX_DEPTH + 1) - level;
        if (at < 0) {
            // A tail call (return error('x')) left its caller's frame before the call:
            // Lua still names the line it was made on, the last one run.
            return depth == 0 && level == 1 ? chunk + ":" + lastLine + ": " : "";
        }
        return frames[at] == null ? "" : chunk + ":" + lines[at] + ": ";
    }
}
