package dev.colossal.server;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The server's ACL users by name (in name order, as ACL USERS and LIST give them), and the check
 * Redis makes before running a command: may the connection's user run it, on these keys and
 * channels. The {@code default} user always exists; new connections start as it, authenticated if
 * it is on and needs no password.
 */
final class AclUsers {

    /** Why a command is refused: {@code command}, {@code key} or {@code channel} (ACL LOG's reason), and what. */
    record Denial(String reason, String object) {
        /** @return the client's error */
        String error() {
            return switch (reason) {
                case "command" -> "NOPERM this user has no permissions to run the '" + object + "' command";
                case "key" -> "NOPERM this user has no permissions to access one of the keys used as arguments";
                default -> "NOPERM this user has no permissions to access one of the channels used as arguments";
            };
        }

        /** @return the error of a command queued in MULTI that its user may no longer run when EXEC runs it */
        String changedSinceQueued() {
            return "NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This"
                    + " command is no longer allowed for the following reason: " + switch (reason) {
                        case "command" -> "no permission to execute the command or subcommand";
                        case "key" -> "no permission to touch the specified keys";
                        default -> "no permission to access one of the channels used as arguments";
                    };
        }

        /** @return ACL DRYRUN's answer */
        String dryRun() {
            return reason.equals("command") ? "This user has no permissions to run the '" + object + "' command"
                    : "This user has no permissions to access the '" + object + "' " + reason;
        }
    }

    static final String DEFAULT = "default";
    private static final AclCatalog CATALOG = AclCatalog.REDIS;

    private final ConcurrentSkipListMap<String, AclUser> users = new ConcurrentSkipListMap<>();
    final AclLog log = new AclLog();
    private final AclUser defaultUser;

    AclUsers(String requirePass) {
        defaultUser = new AclUser(DEFAULT, AclRules.everything(requirePass));
        users.put(DEFAULT, defaultUser);
    }

    AclUser defaultUser() {
        return defaultUser;
    }

    /** @return whether a new connection is authenticated from the start (the default user is on, with nopass) */
    boolean autoAuthenticated() {
        AclRules r = defaultUser.rules;
        return r.on && r.nopass;
    }

    AclUser get(String name) {
        return users.get(name);
    }

    List<AclUser> all() {
        return new ArrayList<>(users.values());
    }

    /**
     * ACL SETUSER: applies {@code ops[from..]} to the user (created if new), all or none.
     *
     * @return null, or the rule refused and why
     */
    synchronized String[] setUser(String name, byte[][] ops, int from, Client self, ServerContext ctx) {
        AclUser u = users.get(name);
        AclRules r = u == null ? new AclRules() : u.rules.copy();
        for (int i = from; i < ops.length; i++) {
            String why = r.apply(ops[i]);
            if (why != null) {
                return new String[] {Errors.text(ops[i]), why};
            }
        }
        if (u == null) {
            users.put(name, new AclUser(name, r));
        } else {
            u.rules = r;
            if (!r.allChannels) {
                closeSubscribersNoLongerAllowed(u, r, self, ctx);
            }
        }
        return null;
    }

    /**
     * CONFIG SET requirepass: as in Redis, the default user's passwords become this one alone
     * ({@code nopass} for null); its other rules stay, and connections already in stay in.
     */
    synchronized void requirePass(String password) {
        AclRules r = defaultUser.rules.copy();
        r.apply(Args.bytes("resetpass"));
        r.apply(password == null ? Args.bytes("nopass") : Args.bytes(">" + password));
        defaultUser.rules = r;
    }

    /**
     * As Redis 7.0 does when a user's channels shrink: closes its connections subscribed to a
     * channel, shard channel or pattern the new rules no longer allow ({@code self} after its reply).
     */
    private static void closeSubscribersNoLongerAllowed(AclUser u, AclRules r, Client self, ServerContext ctx) {
        for (Client x : ctx.clients.values()) {
            Subscriber s = x.subscriber;
            if (x.user != u || s == null) {
                continue;
            }
            boolean denied = false;
            synchronized (ctx.pubsub) { // the lock the subscription sets change under
                for (PubSub.Kind kind : PubSub.Kind.values()) {
                    for (PubSub.Name n : s.names(kind)) {
                        denied |= !channelAllowed(r, n.bytes(), kind == PubSub.Kind.PATTERN);
                    }
                }
            }
            if (denied && x == self) {
                x.closeAfterReply = true;
            } else if (denied) {
                x.killer.run();
            }
        }
    }

    /** Replaces every user by {@code loaded} (ACL LOAD), keeping the default user's object, which connections hold. */
    synchronized void replaceAll(java.util.Map<String, AclRules> loaded, ServerContext ctx) {
        List<AclUser> gone = new ArrayList<>();
        for (AclUser u : users.values()) {
            if (u != defaultUser) {
                gone.add(u);
            }
        }
        users.keySet().removeIf(n -> !n.equals(DEFAULT));
        defaultUser.rules = loaded.getOrDefault(DEFAULT, AclRules.everything(ctx.requirePass));
        loaded.forEach((n, r) -> {
            if (!n.equals(DEFAULT)) {
                users.put(n, new AclUser(n, r));
            }
        });
        disconnect(gone, null, ctx);
    }

    /** ACL DELUSER: removes the users and closes their connections ({@code self} after its reply). @return how many */
    synchronized int delete(List<String> names, Client self, ServerContext ctx) {
        List<AclUser> gone = new ArrayList<>();
        for (String n : names) {
            AclUser u = users.remove(n);
            if (u != null) {
                gone.add(u);
            }
        }
        disconnect(gone, self, ctx);
        return gone.size();
    }

    private static void disconnect(List<AclUser> gone, Client self, ServerContext ctx) {
        for (Client x : ctx.clients.values()) {
            if (gone.contains(x.user)) {
                if (x == self) {
                    x.closeAfterReply = true;
                } else {
                    x.killer.run();
                }
            }
        }
    }

    /**
     * Checks a command of {@code c} against its user's rules, and logs a refusal.
     *
     * @param context ACL LOG's context: {@code toplevel}, {@code multi} (run by EXEC) or {@code lua}
     * @return null if allowed
     */
    Denial refusal(ServerContext ctx, Client c, String name, byte[][] args, String context) {
        AclUser u = c.user;
        Denial d = check(u.rules, name, args);
        if (d != null) {
            log.add(d.reason(), context, d.object(), u.name, ctx.now(), AdminCommands.describe(ctx, c));
        }
        return d;
    }

    /** @return the user {@code name} if it is on and takes {@code password}, else null */
    AclUser authenticate(String name, byte[] password) {
        AclUser u = users.get(name);
        if (u == null) {
            return null;
        }
        AclRules r = u.rules;
        return r.on && r.accepts(password) ? u : null;
    }

    /**
     * Redis's check of a command against a user's rules: the command (or subcommand), then each key
     * by the command's key specs (read or write, for %R~ and %W~), then each channel.
     *
     * @param name the command's full name ({@code get}, {@code config|get}); a subcommand Redis
     *             does not know is checked as its container
     * @return null if allowed
     */
    static Denial check(AclRules r, String name, byte[][] args) {
        AclCatalog.Entry e = CATALOG.find(name);
        if (e == null) {
            return r.allCommands ? null : new Denial("command", name);
        }
        if (!r.allCommands && !r.allows(e.id()) && !name.equals("auth") && !name.equals("hello")
                && !firstArgAllowed(r, e, args)) {
            return new Denial("command", name);
        }
        if (!r.allKeys) {
            Denial d = checkKeys(r, e, args);
            if (d != null) {
                return d;
            }
        }
        return r.allChannels ? null : checkChannels(r, name, args);
    }

    private static boolean firstArgAllowed(AclRules r, AclCatalog.Entry e, byte[][] args) {
        List<String> allowed = r.firstArgs.get(e.id());
        if (allowed == null || args.length < 2) {
            return false;
        }
        String first = Errors.text(args[1]);
        return allowed.stream().anyMatch(first::equalsIgnoreCase);
    }

    /** Checks the keys Redis finds in the request (as COMMAND GETKEYSANDFLAGS lists them), each by its flags. */
    private static Denial checkKeys(AclRules r, AclCatalog.Entry e, byte[][] args) {
        if (!KeyFinder.hasKeys(e.facts()) || !e.facts().arityOk(args.length)) {
            return null;
        }
        for (KeyFinder.Found k : KeyFinder.keys(e.facts(), args)) {
            if (!keyAllowed(r, args[k.position()], KeySpec.aclAccess(k.flags()))) {
                return new Denial("key", Errors.text(args[k.position()]));
            }
        }
        return null;
    }

    private static boolean keyAllowed(AclRules r, byte[] key, int access) {
        for (AclRules.KeyPattern p : r.keys) {
            if ((p.access() & access) == access && Glob.matches(p.pattern(), key)) {
                return true;
            }
        }
        return false;
    }

    private static Denial checkChannels(AclRules r, String name, byte[][] args) {
        boolean pattern = name.equals("psubscribe");
        int last = switch (name) {
            case "publish", "spublish" -> Math.min(1, args.length - 1);
            case "subscribe", "ssubscribe", "psubscribe" -> args.length - 1;
            default -> 0;
        };
        for (int i = 1; i <= last; i++) {
            if (!channelAllowed(r, args[i], pattern)) {
                return new Denial("channel", Errors.text(args[i]));
            }
        }
        return null;
    }

    private static boolean channelAllowed(AclRules r, byte[] channel, boolean pattern) {
        for (byte[] p : r.channels) {
            if (pattern ? java.util.Arrays.equals(p, channel) : Glob.matches(p, channel)) {
                return true;
            }
        }
        return false;
    }
}
