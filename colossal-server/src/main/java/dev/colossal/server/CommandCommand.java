package dev.colossal.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * COMMAND and its subcommands, answered as Redis 7.0.15 answers them for the commands this server
 * has: INFO (with key specs, tips and subcommands) and DOCS from {@link CommandFacts} and
 * {@link CommandDocs}, GETKEYS and GETKEYSANDFLAGS through {@link KeyFinder}. Cluster clients and
 * proxies route by INFO's key specs, so they must be Redis's; the server's own commands, which
 * Redis lacks, are described from their {@link CommandSpec}.
 */
final class CommandCommand {

    private static final List<String> HELP = List.of(
            "COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
            "(no subcommand)", "    Return details about all Redis commands.",
            "COUNT", "    Return the total number of commands in this Redis server.",
            "LIST", "    Return a list of all commands in this Redis server.",
            "INFO [<command-name> ...]", "    Return details about multiple Redis commands.",
            "    If no command names are given, documentation details for all", "    commands are returned.",
            "DOCS [<command-name> ...]", "    Return documentation details about multiple Redis commands.",
            "    If no command names are given, documentation details for all", "    commands are returned.",
            "GETKEYS <full-command>", "    Return the keys from a full Redis command.",
            "GETKEYSANDFLAGS <full-command>", "    Return the keys and the access flags from a full Redis command.",
            "HELP", "    Prints this help.");

    private final CommandTable table;

    CommandCommand(CommandTable table) {
        this.table = table;
    }

    void register(CommandTable t) {
        t.add("command", -1, List.of(), 0, 0, 0, this::run);
    }

    private void run(Client c, byte[][] a, Reply r) {
        if (a.length == 1) {
            List<CommandFacts.Entry> all = commands();
            r.array(all.size());
            all.forEach(e -> info(e, r));
            return;
        }
        String sub = Args.lower(a[1]);
        CommandFacts.Entry self = CommandFacts.REDIS.get("command|" + sub);
        if (self == null) {
            r.error(Errors.unknownSubcommand(a[1], "COMMAND"));
            return;
        }
        if (!self.arityOk(a.length)) {
            r.error(Errors.arity(self.name()));
            return;
        }
        switch (sub) {
            case "count" -> r.integer(commands().size());
            case "info" -> info(a, r);
            case "docs" -> docs(a, r);
            case "list" -> list(a, r);
            case "getkeys" -> getKeys(a, r, false);
            case "getkeysandflags" -> getKeys(a, r, true);
            default -> {
                r.array(HELP.size());
                HELP.forEach(r::simple);
            }
        }
    }

    /** @return the facts of every top-level command this server has */
    private List<CommandFacts.Entry> commands() {
        List<CommandFacts.Entry> out = new ArrayList<>();
        for (CommandSpec s : table.all()) {
            out.add(entry(s));
        }
        out.sort((x, y) -> x.name().compareTo(y.name()));
        return out;
    }

    private static CommandFacts.Entry entry(CommandSpec s) {
        CommandFacts.Entry e = CommandFacts.REDIS.get(s.name());
        return e != null ? e : CommandFacts.of(s);
    }

    /**
     * @param name a command's or subcommand's name as a client wrote it ({@code CONFIG|GET})
     * @return its facts if this server has the command (a subcommand: its container), else null
     */
    private CommandFacts.Entry lookup(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        int bar = lower.indexOf('|');
        CommandSpec s = table.get(bar < 0 ? lower : lower.substring(0, bar));
        if (s == null) {
            return null;
        }
        return bar < 0 ? entry(s) : CommandFacts.REDIS.get(lower);
    }

    private void info(byte[][] a, Reply r) {
        if (a.length == 2) {
            List<CommandFacts.Entry> all = commands();
            r.array(all.size());
            all.forEach(e -> info(e, r));
            return;
        }
        r.array(a.length - 2);
        for (int i = 2; i < a.length; i++) {
            CommandFacts.Entry e = lookup(Errors.text(a[i]));
            if (e == null) {
                r.nullBulk();
            } else {
                info(e, r);
            }
        }
    }

    /** Writes COMMAND INFO's ten fields of {@code e}, its subcommands' nested in the last. */
    private static void info(CommandFacts.Entry e, Reply r) {
        r.array(10);
        r.bulk(e.name());
        r.integer(e.arity());
        r.set(e.flags().size());
        e.flags().forEach(r::simple);
        r.integer(e.firstKey());
        r.integer(e.lastKey());
        r.integer(e.step());
        r.set(e.categories().size());
        e.categories().forEach(x -> r.simple("@" + x));
        r.set(e.tips().size());
        e.tips().forEach(r::bulk);
        r.set(e.keySpecs().size());
        e.keySpecs().forEach(s -> s.reply(r));
        if (e.subcommands().isEmpty()) {
            r.set(0); // Redis's empty list here is a set, a full one an array
        } else {
            r.array(e.subcommands().size());
            e.subcommands().forEach(sub -> info(CommandFacts.REDIS.get(sub), r));
        }
    }

    private void docs(byte[][] a, Reply r) {
        List<CommandFacts.Entry> found = new ArrayList<>();
        if (a.length == 2) {
            found.addAll(commands());
        } else {
            for (int i = 2; i < a.length; i++) {
                CommandFacts.Entry e = lookup(Errors.text(a[i]));
                if (e != null) {
                    found.add(e);
                }
            }
        }
        r.map(found.size());
        for (CommandFacts.Entry e : found) {
            r.bulk(e.name());
            if (CommandDocs.REDIS.has(e.name())) {
                CommandDocs.REDIS.reply(e.name(), r);
            } else { // one of the server's own commands
                r.map(3);
                r.bulk("summary");
                r.bulk("A command of Colossal's own, which Redis does not have");
                r.bulk("since");
                r.bulk("1.0.0");
                r.bulk("group");
                r.bulk("server");
            }
        }
    }

    /** COMMAND LIST [FILTERBY MODULE name | ACLCAT category | PATTERN pattern]: names, subcommands too. */
    private void list(byte[][] a, Reply r) {
        String by = a.length == 5 && Args.is(a[2], "FILTERBY") ? Args.lower(a[3]) : null;
        if (a.length != 2 && (by == null || !List.of("module", "aclcat", "pattern").contains(by))) {
            r.error(Errors.SYNTAX);
            return;
        }
        List<String> names = new ArrayList<>();
        for (CommandFacts.Entry e : commands()) {
            List<CommandFacts.Entry> withSubs = new ArrayList<>();
            withSubs.add(e);
            e.subcommands().forEach(s -> withSubs.add(CommandFacts.REDIS.get(s)));
            for (CommandFacts.Entry x : withSubs) {
                if (by == null || by.equals("aclcat") && x.categories().contains(Args.lower(a[4]))
                        || by.equals("pattern") && Glob.matchesIgnoringCase(a[4], Args.bytes(x.name()))) {
                    names.add(x.name());
                }
            }
        }
        r.array(names.size());
        names.forEach(r::bulk);
    }

    /** COMMAND GETKEYS and GETKEYSANDFLAGS, with Redis's checks in Redis's order. */
    private void getKeys(byte[][] a, Reply r, boolean withFlags) {
        byte[][] command = java.util.Arrays.copyOfRange(a, 2, a.length);
        CommandFacts.Entry e = lookup(Errors.text(command[0]));
        if (e != null && !e.subcommands().isEmpty() && command.length > 1) {
            e = lookup(e.name() + "|" + Errors.text(command[1]));
        }
        if (e == null || Errors.text(command[0]).indexOf('|') >= 0) {
            r.error("ERR Invalid command specified");
        } else if (!KeyFinder.hasKeys(e)) {
            r.error("ERR The command has no key arguments");
        } else if (!e.arityOk(command.length)) {
            r.error("ERR Invalid number of arguments specified for command");
        } else {
            List<KeyFinder.Found> keys = KeyFinder.keys(e, command);
            if (keys.isEmpty() && !e.has("no_mandatory_keys")) {
                r.error("ERR Invalid arguments specified for command");
                return;
            }
            r.array(keys.size());
            for (KeyFinder.Found k : keys) {
                if (withFlags) {
                    r.array(2);
                    r.bulk(command[k.position()]);
                    KeySpec.replyFlags(r, k.flags());
                } else {
                    r.bulk(command[k.position()]);
                }
            }
        }
    }
}
