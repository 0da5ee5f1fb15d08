package dev.colossal.server;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.OptionalLong;

/**
 * The ACL command, as Redis 7.0 answers it: SETUSER, GETUSER, DELUSER, USERS, LIST, WHOAMI, CAT,
 * DRYRUN, GENPASS, LOG, SAVE, LOAD and HELP, over the users of {@link AclUsers}.
 */
final class AclCommands {

    private static final List<String> HELP = List.of(
            "ACL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
            "CAT [<category>]",
            "    List all commands that belong to <category>, or all command categories",
            "    when no category is specified.",
            "DELUSER <username> [<username> ...]",
            "    Delete a list of users.",
            "DRYRUN <username> <command> [<arg> ...]",
            "    Returns whether the user can execute the given command without executing the command.",
            "GETUSER <username>",
            "    Get the user's details.",
            "GENPASS [<bits>]",
            "    Generate a secure 256-bit user password. The optional `bits` argument can",
            "    be used to specify a different size.",
            "LIST",
            "    Show users details in config file format.",
            "LOAD",
            "    Reload users from the ACL file.",
            "LOG [<count> | RESET]",
            "    Show the ACL log entries.",
            "SAVE",
            "    Save the current config to the ACL file.",
            "SETUSER <username> <attribute> [<attribute> ...]",
            "    Create or modify a user with the specified attributes.",
            "USERS",
            "    List all the registered usernames.",
            "WHOAMI",
            "    Return the current connection username.",
            "HELP",
            "    Prints this help."
);
    private static final String NO_ACL_FILE = "ERR This Redis instance is not configured to use an ACL file. You may"
            + " want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a"
            + " Redis configuration file set) in order to store users in the Redis configuration.";

    private final ServerContext ctx;
    private final CommandTable table;
    private final SecureRandom random = new SecureRandom();

    AclCommands(ServerContext ctx, CommandTable table) {
        this.ctx = ctx;
        this.table = table;
    }

    void register(CommandTable t) {
        t.add("acl", -2, List.of(), 0, 0, 0, this::acl);
    }

    private void acl(Client c, byte[][] a, Reply r) {
        byte[] sub = a[1];
        String name = Args.lower(sub);
        int arity = switch (name) {
            case "whoami", "users", "list", "load", "save", "help" -> 2;
            case "getuser" -> 3;
            case "setuser", "deluser" -> -3;
            default -> 0;
        };
        if (arity > 0 && a.length != arity || arity < 0 && a.length < -arity) {
            r.error(Errors.arity("acl|" + name));
            return;
        }
        switch (name) {
            case "whoami" -> r.bulk(c.user == null ? AclUsers.DEFAULT : c.user.name);
            case "users" -> {
                List<AclUser> all = ctx.acl.all();
                r.array(all.size());
                all.forEach(u -> r.bulk(u.name));
            }
            case "list" -> {
                List<AclUser> all = ctx.acl.all();
                r.array(all.size());
                all.forEach(u -> r.bulk(AclDescription.line(u.name, u.rules)));
            }
            case "getuser" -> getUser(a[2], r);
            case "setuser" -> setUser(c, a, r);
            case "cat" -> cat(a, r);
            case "dryrun" -> dryRun(a, r);
            case "genpass" -> genPass(a, r);
            case "log" -> log(a, r);
            case "deluser" -> delUser(c, a, r);
            case "load" -> load(r);
            case "save" -> save(r);
            case "help" -> {
                r.array(HELP.size());
                HELP.forEach(r::simple);
            }
            default -> r.error(Errors.unknownSubcommand(sub, "ACL"));
        }
    }

    private void setUser(Client c, byte[][] a, Reply r) {
        String name = Errors.text(a[2]);
        for (byte b : a[2]) {
            if (b == 0 || Character.isWhitespace(b)) {
                r.error("ERR Usernames can't contain spaces or null characters");
                return;
            }
        }
        String[] refused = ctx.acl.setUser(name, a, 3, c, ctx);
        if (refused != null) {
            r.error("ERR Error in ACL SETUSER modifier '" + refused[0] + "': " + refused[1]);
        } else {
            r.ok();
        }
    }

    private void delUser(Client c, byte[][] a, Reply r) {
        List<String> names = new java.util.ArrayList<>();
        for (int i = 2; i < a.length; i++) {
            names.add(Errors.text(a[i]));
        }
        if (names.contains(AclUsers.DEFAULT)) {
            r.error("ERR The 'default' user cannot be removed");
            return;
        }
        r.integer(ctx.acl.delete(names, c, ctx));
    }

    private void getUser(byte[] name, Reply r) {
        AclUser u = ctx.acl.get(Errors.text(name));
        if (u == null) {
            r.nullBulk();
            return;
        }
        AclRules rules = u.rules;
        r.map(6);
        r.bulk("flags");
        List<String> flags = AclDescription.flags(rules);
        r.set(flags.size());
        flags.forEach(r::bulk);
        r.bulk("passwords");
        r.array(rules.passwords.size());
        rules.passwords.forEach(r::bulk);
        r.bulk("commands");
        r.bulk(AclDescription.commands(rules));
        r.bulk("keys");
        r.bulk(AclDescription.keys(rules));
        r.bulk("channels");
        r.bulk(AclDescription.channels(rules));
        r.bulk("selectors");
        r.array(0);
    }

    /** ACL CAT: the categories, or the commands and subcommands of one (Redis's whole table's, as ACL rules name them). */
    private void cat(byte[][] a, Reply r) {
        if (a.length > 3) {
            r.error(wrongArguments(a[1]));
        } else if (a.length == 2) {
            r.array(AclCatalog.CATEGORIES.size());
            AclCatalog.CATEGORIES.forEach(r::bulk);
        } else {
            long bit = AclCatalog.category(Args.lower(a[2]));
            if (bit == 0) {
                r.error("ERR Unknown category '" + Errors.text(a[2]) + "'");
                return;
            }
            List<String> names = new java.util.ArrayList<>();
            for (AclCatalog.Entry e : AclCatalog.REDIS.all()) {
                if ((e.categories() & bit) != 0) {
                    names.add(e.name());
                }
            }
            r.array(names.size());
            names.forEach(r::bulk);
        }
    }

    /** ACL DRYRUN user command [arg ...]: whether the user may run it, without running it. */
    private void dryRun(byte[][] a, Reply r) {
        if (a.length < 4) {
            r.error(Errors.arity("acl|dryrun"));
            return;
        }
        AclUser u = ctx.acl.get(Errors.text(a[2]));
        if (u == null) {
            r.error("ERR User '" + Errors.text(a[2]) + "' not found");
            return;
        }
        CommandSpec spec = table.find(a[3]);
        byte[][] command = java.util.Arrays.copyOfRange(a, 3, a.length);
        if (spec == null) {
            r.error("ERR Command '" + Errors.text(a[3]) + "' not found");
        } else if (!spec.arityOk(command.length)) {
            r.error(Errors.arity(spec.name()));
        } else {
            String name = LastCommand.of(spec, command);
            AclUsers.Denial d = AclUsers.check(u.rules, name.equals(LastCommand.NONE) ? spec.name() : name, command);
            if (d == null) {
                r.ok();
            } else {
                r.bulk(d.dryRun());
            }
        }
    }

    /** @return the ACL file, or null after Redis's refusal for a server without one */
    private java.nio.file.Path aclFile(Reply r) {
        java.nio.file.Path file = ctx.aclFile;
        if (file == null) {
            r.error(NO_ACL_FILE);
        }
        return file;
    }

    private void load(Reply r) {
        java.nio.file.Path file = aclFile(r);
        if (file == null) {
            return;
        }
        try {
            ctx.acl.replaceAll(AclFile.read(file), ctx);
            r.ok();
        } catch (AclFile.BadFile e) {
            r.error("ERR " + e.getMessage());
        } catch (java.io.IOException e) {
            r.error("ERR Error loading ACLs, opening file '" + file + "': " + e.getMessage());
        }
    }

    private void save(Reply r) {
        java.nio.file.Path file = aclFile(r);
        if (file == null) {
            return;
        }
        try {
            AclFile.write(file, ctx.acl.all());
            r.ok();
        } catch (java.io.IOException e) {
            r.error("ERR There was an error trying to save the ACLs. Please check the server logs for more information");
        }
    }

    /** ACL GENPASS [bits]: random hex, four bits a character, 256 bits by default. */
    private void genPass(byte[][] a, Reply r) {
        long bits = 256;
        if (a.length > 3) {
            r.error(wrongArguments(a[1]));
            return;
        }
        if (a.length == 3) {
            OptionalLong n = Args.toLong(a[2]);
            if (n.isEmpty()) {
                r.error(Errors.NOT_INTEGER);
                return;
            }
            bits = n.getAsLong();
            if (bits <= 0 || bits > 4096) {
                r.error("ERR ACL GENPASS argument must be the number of bits for the output password, a positive number"
                        + " up to 4096");
                return;
            }
        }
        int chars = (int) ((bits + 3) / 4);
        byte[] raw = new byte[(chars + 1) / 2];
        random.nextBytes(raw);
        r.bulk(HexFormat.of().formatHex(raw).substring(0, chars));
    }

    /** ACL LOG [count|RESET]: the newest refusals first, 10 unless told. */
    private void log(byte[][] a, Reply r) {
        long count = 10;
        if (a.length > 3) {
            r.error(wrongArguments(a[1]));
            return;
        } else if (a.length == 3 && Args.is(a[2], "RESET")) {
            ctx.acl.log.reset();
            r.ok();
            return;
        } else if (a.length == 3) {
            java.util.OptionalLong n = Args.toLong(a[2]);
            if (n.isEmpty()) {
                r.error(Errors.NOT_INTEGER);
                return;
            }
            count = n.getAsLong();
        }
        long now = ctx.now();
        List<AclLog.Entry> entries = ctx.acl.log.newest(Math.max(0, count));
        r.array(entries.size());
        for (AclLog.Entry e : entries) {
            r.map(7);
            r.bulk("count");
            r.integer(e.count);
            r.bulk("reason");
            r.bulk(e.reason);
            r.bulk("context");
            r.bulk(e.context);
            r.bulk("object");
            r.bulk(e.object);
            r.bulk("username");
            r.bulk(e.user);
            r.bulk("age-seconds");
            // a double, as Redis writes one (%.17g: 1764.2670000000001)
            String age = LuaJson.g(Math.max(0, now - e.updatedMillis) / 1000.0, 17);
            if (r.protocol == 3) {
                r.append(Args.bytes("," + age + "\r\n"));
            } else {
                r.bulk(age);
            }
            r.bulk("client-info");
            r.bulk(e.clientInfo);
        }
    }

    private static String wrongArguments(byte[] sub) {
        return "ERR unknown subcommand or wrong number of arguments for '" + Errors.text(sub) + "'. Try ACL HELP.";
    }
}
