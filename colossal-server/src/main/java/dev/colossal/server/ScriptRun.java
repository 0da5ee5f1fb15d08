package dev.colossal.server;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * One script while it runs: whom it runs for, whether it may write, and the race between its
 * first write and SCRIPT KILL, which Redis settles this way: a script that wrote cannot be killed
 * (its writes would be left half done), one that did not can.
 */
final class ScriptRun {

    private static final int RUNNING = 0;
    private static final int WROTE = 1;
    private static final int KILLED = 2;

    /** What SCRIPT KILL found. */
    enum Kill { KILLED, UNKILLABLE }

    final Client caller;
    /** Where the script's commands run and answer: the caller's database and rights, a reply of its own. */
    final Client inner;
    final String sha;
    final boolean readOnly;
    /** Runs its {@code redis.call}s. */
    final ScriptCalls calls;
    final long startNanos = System.nanoTime();
    /** The event loop's thread the script runs on. */
    final Thread thread = Thread.currentThread();
    /**
     * RUNNING, then WROTE or KILLED, never both (compare-and-set, so a kill and a first write
     * cannot cross), but for {@link #abort}.
     */
    private final AtomicInteger state = new AtomicInteger(RUNNING);

    /**
     * Whether the data was over {@code maxmemory} ({@code noeviction}) as the script started and
     * it did not declare {@code allow-oom}: its first command that may add data is refused, as
     * in Redis; once it wrote, it may go on.
     */
    boolean refuseFirstWrite;

    /** @return whether a write command ran (or was let run) in this script */
    boolean wrote() {
        return state.get() == WROTE;
    }

    /** Stripes of undeclared keys the script locked as it named them, unlocked when it ends. */
    final java.util.List<java.util.concurrent.locks.Lock> undeclared = new java.util.ArrayList<>();

    ScriptRun(Client caller, String sha, boolean readOnly, ScriptCalls calls) {
        this.caller = caller;
        this.calls = calls;
        this.sha = sha;
        this.readOnly = readOnly;
        this.inner = new Client(caller.id, caller.address, caller.createdMillis, caller.authenticated);
        inner.db = caller.db;
        inner.denyBlocking = true;
        inner.name = caller.name;
        inner.user = caller.user;
        inner.scriptCaller = caller;
    }

    /** The debugging session this script runs in (SCRIPT DEBUG SYNC), null for nearly every script. */
    LuaDebugger debugger;

    /** FCALL's request while a function runs (FUNCTION STATS shows it), null for a script. */
    volatile byte[][] command;

    /** When a function library's loading run stops (System.nanoTime), 0 for a script, which has none. */
    private long deadline;

    /** Stops this run at its first instruction {@code millis} from now: a library's load has 500 ms, as in Redis. */
    void limit(long millis) {
        deadline = System.nanoTime() + millis * 1_000_000;
        if (deadline == 0) {
            deadline = 1;
        }
    }

    /** @return whether its time ran out ({@link #limit}) */
    boolean timedOut() {
        return deadline != 0 && System.nanoTime() - deadline > 0;
    }

    /** @return whether SCRIPT KILL asked this script to stop, or its time ran out */
    boolean killRequested() {
        return state.get() == KILLED || deadline != 0 && timedOut();
    }

    /**
     * Called before a write command runs.
     *
     * @return false if the script was killed first, and must not write
     */
    boolean writing() {
        return state.compareAndSet(RUNNING, WROTE) || state.get() == WROTE;
    }

    /** SCRIPT KILL, from any thread. */
    Kill kill() {
        return state.compareAndSet(RUNNING, KILLED) || state.get() == KILLED ? Kill.KILLED : Kill.UNKILLABLE;
    }

    /** Stops the script at its next instruction even if it wrote (the server is closing). */
    void abort() {
        state.set(KILLED);
    }

    long runningMillis() {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }
}
