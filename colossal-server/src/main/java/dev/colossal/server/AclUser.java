package dev.colossal.server;

/**
 * A user connections authenticate as. Its {@link AclRules} are replaced whole by ACL SETUSER
 * (volatile: a connection on another loop sees the new rules at its next command), and every
 * connection of the user follows them from then on, as in Redis.
 */
final class AclUser {

    final String name;
    volatile AclRules rules;

    AclUser(String name, AclRules rules) {
        this.name = name;
        this.rules = rules;
    }

    /** @return whether this user may run anything on any key and channel: the check is skipped */
    boolean unrestricted() {
        return rules.unrestricted();
    }
}
