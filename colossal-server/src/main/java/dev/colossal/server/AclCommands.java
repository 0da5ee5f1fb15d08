package dev.colossal.server;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.OptionalLong;

/**
 * ACL, as Redis 7.0 answers it for a server whose one user is {@code default}, allowed every
 * command, key and channel, with the password {@code --requirepass} sets (or none): WHOAMI, USERS,
 * LIST, GETUSER, CAT, DRYRUN, GENPASS, LOG (always empty), DELUSER, LOAD, SAVE and HELP, with
 * Redis's replies and errors. SETUSER is refused, saying why: users other than {@code default}
 * are not kept here, and its password is the server's setting.
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
    /** Redis 7.0's command categories, in ACL CAT's order. */
    private static final List<String> CATEGORIES = List.of("keyspace", "read", "write", "set", "sortedset", "list",
            "hash", "string", "bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow", "blocking",
            "dangerous", "connection", "transaction", "scripting");
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
            default -> 0;
        };
        if (arity != 0 && a.length != arity) {
            r.error(Errors.arity("acl|" + name));
            return;
        }
        switch (name) {
            case "whoami" -> r.bulk("default");
            case "users" -> {
                r.array(1);
                r.bulk("default");
            }
            case "list" -> {
                r.array(1);
                String pass = ctx.config.requirePass();
                r.bulk("user default on " + (pass == null ? "nopass" : "#" + sha256(pass)) + " ~* &* +@all");
            }
            case "getuser" -> getUser(a[2], r);
            case "cat" -> cat(a, r);
            case "dryrun" -> dryRun(a, r);
            case "genpass" -> genPass(a, r);
            case "log" -> log(a, r);
            case "deluser" -> {
                if (a.length < 3) {
                    r.error(Errors.arity("acl|deluser"));
                    return;
                }
                for (int i = 2; i < a.length; i++) {
                    if (Errors.text(a[i]).equals("default")) {
                        r.error("ERR The 'default' user cannot be removed");
                        return;
                    }
                }
                r.integer(0);
            }
            case "setuser" -> r.error("ERR ACL SETUSER is not supported: this server has one user, 'default', allowed"
                    + " every command; give it a password with --requirepass (or requirepass in the config file)");
            case "load", "save" -> r.error(NO_ACL_FILE);
            case "help" -> {
                r.array(HELP.size());
                HELP.forEach(r::simple);
            }
            default -> r.error(Errors.unknownSubcommand(sub, "ACL"));
        }
    }

    private void getUser(byte[] user, Reply r) {
        if (!Errors.text(user).equals("default")) {
            r.nullBulk();
            return;
        }
        String pass = ctx.config.requirePass();
        r.map(6);
        r.bulk("flags");
        r.array(pass == null ? 2 : 1);
        r.bulk("on");
        if (pass == null) {
            r.bulk("nopass");
        }
        r.bulk("passwords");
        r.array(pass == null ? 0 : 1);
        if (pass != null) {
            r.bulk(sha256(pass));
        }
        r.bulk("commands");
        r.bulk("+@all");
        r.bulk("keys");
        r.bulk("~*");
        r.bulk("channels");
        r.bulk("&*");
        r.bulk("selectors");
        r.array(0);
    }

    /** ACL CAT: the categories; with one, this server cannot list its commands, and says so. */
    private void cat(byte[][] a, Reply r) {
        if (a.length > 3) {
            r.error(wrongArguments(a[1]));
        } else if (a.length == 2) {
            r.array(CATEGORIES.size());
            CATEGORIES.forEach(r::bulk);
        } else if (!CATEGORIES.contains(Args.lower(a[2]))) {
            r.error("ERR Unknown category '" + Errors.text(a[2]) + "'");
        } else {
            r.error("ERR ACL CAT <category> is not supported: this server does not sort its commands into categories;"
                    + " its one user may run every command (COMMAND INFO lists them)");
        }
    }

    /** ACL DRYRUN user command [arg ...]: the default user may run any command given its arity. */
    private void dryRun(byte[][] a, Reply r) {
        if (a.length < 4) {
            r.error(Errors.arity("acl|dryrun"));
            return;
        }
        if (!Errors.text(a[2]).equals("default")) {
            r.error("ERR User '" + Errors.text(a[2]) + "' not found");
            return;
        }
        CommandSpec spec = table.get(Args.lower(a[3]));
        if (spec == null) {
            r.error("ERR Command '" + Errors.text(a[3]) + "' not found");
        } else if (!spec.arityOk(a.length - 3)) {
            r.error(Errors.arity(spec.name()));
        } else {
            r.ok();
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

    /** ACL LOG [count|RESET]: nothing is logged here (no user is ever refused a command or key). */
    private void log(byte[][] a, Reply r) {
        if (a.length > 3) {
            r.error(wrongArguments(a[1]));
        } else if (a.length == 3 && Args.is(a[2], "RESET")) {
            r.ok();
        } else if (a.length == 3 && Args.toLong(a[2]).isEmpty()) {
            r.error(Errors.NOT_INTEGER);
        } else {
            r.array(0);
        }
    }

    private static String wrongArguments(byte[] sub) {
        return "ERR unknown subcommand or wrong number of arguments for '" + Errors.text(sub) + "'. Try ACL HELP.";
    }

    private static String sha256(String password) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(password.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
