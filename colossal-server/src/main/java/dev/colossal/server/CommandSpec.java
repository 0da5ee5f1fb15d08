package dev.colossal.server;

import java.util.List;

/**
 * One command as COMMAND describes it and the dispatcher checks it.
 *
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
record CommandSpec(String name, int arity, List<String> flags, int firstKey, int lastKey, int step,
                   boolean noAuth, Handler handler, CommandStats stats) {

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
        CommandFacts.Entry movable = flags.contains("movablekeys") && arityOk(command.length)
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
