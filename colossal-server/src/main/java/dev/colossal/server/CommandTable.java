package dev.colossal.server;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Every command by name, and the dispatch rules Redis applies before running one. */
final class CommandTable {

    private final Map<String, CommandSpec> byName = new HashMap<>();
    private final ServerContext ctx;

    CommandTable(ServerContext ctx) {
        this.ctx = ctx;
        StringCommands strings = new StringCommands(ctx);
        strings.register(this);
        new KeyCommands(ctx, strings).register(this);
        new AdminCommands(ctx, this).register(this);
    }

    void add(String name, int arity, List<String> flags, int first, int last, int step, CommandSpec.Handler h) {
        byName.put(name, new CommandSpec(name, arity, flags, first, last, step, false, h));
    }

    void addNoAuth(String name, int arity, List<String> flags, CommandSpec.Handler h) {
        byName.put(name, new CommandSpec(name, arity, flags, 0, 0, 0, true, h));
    }

    CommandSpec get(String name) {
        return byName.get(name);
    }

    Collection<CommandSpec> all() {
        return byName.values();
    }

    /** Runs one request, in Redis's order of checks: unknown command, arity, authentication. */
    void execute(Client c, byte[][] args) {
        Reply r = c.reply;
        ctx.stats.commands.increment();
        CommandSpec spec = byName.get(Args.lower(args[0]));
        if (spec == null) {
            r.error(Errors.unknownCommand(args));
            return;
        }
        if (!spec.arityOk(args.length)) {
            r.error(Errors.arity(spec.name()));
            return;
        }
        if (!c.authenticated && !spec.noAuth()) {
            r.error(Errors.NOAUTH);
            return;
        }
        c.lastCommand = spec.name();
        try {
            spec.handler().run(c, args, r);
        } catch (RuntimeException e) {
            // A storage failure (disk full, damaged file) fails this command, not the connection.
            r.error("ERR " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }
}
