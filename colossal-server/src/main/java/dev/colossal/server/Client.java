package dev.colossal.server;

/** The state of one connection as commands see it: identity, protocol, authentication. */
final class Client {

    final long id;
    final String address;
    final long createdMillis;
    final Reply reply = new Reply(16 * 1024);
    String name;
    String libName;
    String libVersion;
    boolean authenticated;
    /** Set by QUIT and protocol errors: close once the pending replies are written. */
    boolean closeAfterReply;
    String lastCommand = "NULL";

    Client(long id, String address, long createdMillis, boolean authenticated) {
        this.id = id;
        this.address = address;
        this.createdMillis = createdMillis;
        this.authenticated = authenticated;
    }
}
