package dev.colossal.server;

import java.util.OptionalLong;

/**
 * CLIENT KILL, in both of Redis 7.0's forms: {@code CLIENT KILL ip:port} (OK, or an error if no
 * client has that address) and {@code CLIENT KILL <filter> <value> ...} with ID, ADDR, LADDR, TYPE,
 * USER and SKIPME (the number of clients closed). An operator's way to drop a runaway or stuck
 * client without restarting the server. A client's connection is closed by its own event loop
 * ({@link Client#killer}); the client that sends the command is closed once it has its reply.
 */
final class ClientKill {

    private final ServerContext ctx;

    ClientKill(ServerContext ctx) {
        this.ctx = ctx;
    }

    /** Runs {@code CLIENT KILL ...} ({@code a[1]} is KILL) for client {@code c}. */
    void run(Client c, byte[][] a, Reply r) {
        if (a.length == 3) {
            String addr = Errors.text(a[2]);
            if (kill(c, x -> x.address.equals(addr), false) == 0) {
                r.error("ERR No such client");
            } else {
                r.ok();
            }
            return;
        }
        long id = -1;
        String addr = null;
        String laddr = null;
        boolean master = false;
        boolean replicas = false;
        Boolean pubsub = null; // TYPE PUBSUB: true, TYPE NORMAL: false, no TYPE: null
        AclUser user = null;
        boolean skipMe = true;
        for (int i = 2; i < a.length; i += 2) {
            if (i + 1 >= a.length) {
                r.error(Errors.SYNTAX);
                return;
            }
            byte[] value = a[i + 1];
            if (Args.is(a[i], "ID")) {
                OptionalLong n = Args.toLong(value);
                if (n.isEmpty() || n.getAsLong() < 1) {
                    r.error("ERR client-id should be greater than 0");
                    return;
                }
                id = n.getAsLong();
            } else if (Args.is(a[i], "TYPE")) {
                // A replica's link to its master (MasterLink), or the replicas following this server
                if (Args.is(value, "MASTER")) {
                    master = true;
                } else if (Args.is(value, "REPLICA") || Args.is(value, "SLAVE")) {
                    replicas = true;
                } else if (Args.is(value, "PUBSUB") || Args.is(value, "NORMAL")) {
                    pubsub = Args.is(value, "PUBSUB");
                } else {
                    r.error("ERR Unknown client type '" + Errors.text(value) + "'");
                    return;
                }
            } else if (Args.is(a[i], "ADDR")) {
                addr = Errors.text(value);
            } else if (Args.is(a[i], "LADDR")) {
                laddr = Errors.text(value);
            } else if (Args.is(a[i], "USER")) {
                user = ctx.acl.get(Errors.text(value));
                if (user == null) {
                    r.error("ERR No such user '" + Errors.text(value) + "'");
                    return;
                }
            } else if (Args.is(a[i], "SKIPME") && (Args.is(value, "YES") || Args.is(value, "NO"))) {
                skipMe = Args.is(value, "YES");
            } else {
                r.error(Errors.SYNTAX);
                return;
            }
        }
        long wantId = id;
        String wantAddr = addr;
        String wantLaddr = laddr;
        Boolean wantPubsub = pubsub;
        boolean wantReplica = replicas;
        AclUser wantUser = user;
        boolean wantMaster = master;
        r.integer(kill(c, x -> (wantId < 0 || x.id == wantId) && (wantAddr == null || x.address.equals(wantAddr))
                && (wantLaddr == null || AdminCommands.localAddress(ctx, x).equals(wantLaddr))
                && (wantPubsub == null || wantPubsub == subscribed(x) && !x.fromMaster && !x.replica)
                && (!wantMaster || x.fromMaster) && (!wantReplica || x.replica)
                && (wantUser == null || x.user == wantUser || x.user == null && wantUser == ctx.acl.defaultUser()), skipMe));
    }

    /** @return whether {@code x}, perhaps another loop's client, is a subscriber (its counts are volatile) */
    static boolean subscribed(Client x) {
        Subscriber s = x.subscriber;
        return s != null && s.subscribed();
    }

    /** Closes every client {@code match} takes (but {@code c} itself if {@code skipMe}); @return how many */
    private int kill(Client c, java.util.function.Predicate<Client> match, boolean skipMe) {
        int killed = 0;
        for (Client x : ctx.clients.values()) {
            if (match.test(x) && !(skipMe && x == c)) {
                if (x == c) {
                    c.closeAfterReply = true; // as in Redis: the reply first, then the close
                } else {
                    x.killer.run();
                }
                killed++;
            }
        }
        return killed;
    }
}
