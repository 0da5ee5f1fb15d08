package dev.colossal.server;

import java.util.List;
import java.util.Set;

/**
 * One command as COMMAND describes it and the dispatcher checks it. What the dispatcher asks of
 * every request (is it a write, read-only, fast, a container of subcommands, a look that does not
 * use its keys) is worked out here once, not by a string lookup per request: those lookups were a
 * few percent of a pipelined small command's CPU.
 */
final class CommandSpec {

    private final String name;
    private final int arity;
    private final List<String> flags;
    private final int firstKey;
    private final int lastKey;
    private final int step;
    private final boolean noAuth;
    private final Handler handler;
    private final CommandStats stats;
    private final boolean writes;
    private final boolean readOnly;
    private final boolean fast;
    private final boolean movableKeys;
    private final boolean looksOnly;
    /** Redis 7.0's subcommands if this is a container ({@link LastCommand}), else null. */
    private final Set<String> subcommands;

    /**
     * @param name     lower-case name
     * @param arity    Redis convention: N exactly N arguments (name included), -N at least N
     * @param flags    COMMAND's flags, e.g. {@code write}, {@code readonly}, {@code fast}
     * @param firstKey position of the first key, 0 if none
     * @param lastKey  position of the last key, -1 for the last argument
     * @param step     distance between keys
     * @param noAuth   runs before AUTH when a password is required
     * @param handler  the code
     * @param stats    what INFO commandstats shows of it
     */
    CommandSpec(String name, int arity, List<String> flags, int firstKey, int lastKey, int step, boolean noAuth,
            Handler handler, CommandStats stats) {
        this.name = name;
        this.arity = arity;
        this.flags = flags;
        this.firstKey = firstKey;
        this.lastKey = lastKey;
        this.step = step;
        this.noAuth = noAuth;
        this.handler = handler;
        this.stats = stats;
        this.writes = flags.contains("write");
        this.readOnly = flags.contains("readonly");
        this.fast = flags.contains("fast");
        this.movableKeys = flags.contains("movablekeys");
        this.looksOnly = AccessClock.looksOnly(name);
        this.subcommands = LastCommand.subcommandsOrNull(name);
    }

    /** @return the lower-case name */
    String name() {
        return name;
    }

    /** @return Redis's arity: N exactly N arguments (name included), -N at least N */
    int arity() {
        return arity;
    }

    /** @return COMMAND's flags */
    List<String> flags() {
        return flags;
    }

    /** @return the position of the first key, 0 if none */
    int firstKey() {
        return firstKey;
    }

    /** @return the position of the last key, -1 for the last argument */
    int lastKey() {
        return lastKey;
    }

    /** @return the distance between keys */
    int step() {
        return step;
    }

    /** @return whether it runs before AUTH when a password is required */
    boolean noAuth() {
        return noAuth;
    }

    /** @return the code */
    Handler handler() {
        return handler;
    }

    /** @return what INFO commandstats shows of it */
    CommandStats stats() {
        return stats;
    }

    /** @return whether it is flagged {@code write} */
    boolean writes() {
        return writes;
    }

    /** @return whether it is flagged {@code readonly} */
    boolean readOnly() {
        return readOnly;
    }

    /** @return whether it is flagged {@code fast} */
    boolean fast() {
        return fast;
    }

    /** @return whether it is flagged {@code movablekeys}: its keys move with its arguments */
    boolean movableKeys() {
        return movableKeys;
    }

    /** @return whether it looks at its keys without using them ({@link AccessClock#looksOnly}) */
    boolean looksOnly() {
        return looksOnly;
    }

    /** @return Redis 7.0's subcommands of this container, or null if it is none */
    Set<String> subcommands() {
        return subcommands;
    }

    @Override
    public String toString() {
        return "CommandSpec[" + name + "]";
    }

    /** Runs a command whose name and arity were checked. */
    @FunctionalInterface
    interface Handler {
        void run(Client c, byte[][] args, Reply r);
    }

    /**
     * Passes each key {@code command} names: by this spec's key positions, or for a command whose
     * keys move with its arguments ({@code movablekeys}: ZUNION's count, XREAD's STREAMS) as
     * Redis finds them ({@link KeyFinder}), which client tracking, script locks and EXEC need whole.
     */
    void forEachKey(byte[][] command, java.util.function.Consumer<byte[]> action) {
        CommandFacts.Entry movable = movableKeys && arityOk(command.length)
                ? CommandFacts.REDIS.get(name) : null;
        if (movable != null) {
            for (KeyFinder.Found k : KeyFinder.keys(movable, command)) {
                action.accept(command[k.position()]);
            }
            return;
        }
        if (firstKey <= 0) {
            return;
        }
        int last = lastKey < 0 ? command.length + lastKey : Math.min(lastKey, command.length - 1);
        for (int i = firstKey; i <= last; i += Math.max(1, step)) {
            action.accept(command[i]);
        }
    }

    boolean arityOk(int argc) {
        return arity > 0 ? argc == arity : argc >= -arity;
    }
}
