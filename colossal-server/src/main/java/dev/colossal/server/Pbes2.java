package dev.colossal.server;

import java.security.GeneralSecurityException;
import java.security.NoSuchAlgorithmException;
import java.security.spec.InvalidKeySpecException;
import java.util.HexFormat;
import java.util.Map;
import javax.crypto.Cipher;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Decrypts a PKCS#8 EncryptedPrivateKeyInfo under PBES2 (PBKDF2 and a CBC cipher), which is how
 * OpenSSL 3 encrypts every key it writes. The JDK's own reading takes AES only, while
 * {@code openssl req -keyout} picks 3DES; this takes both. The layout, in DER:
 *
 * <pre>
 * SEQUENCE {
 *   SEQUENCE { OID pbes2,
 *              SEQUENCE { SEQUENCE { OID pbkdf2, SEQUENCE { OCTET salt, INTEGER iterations,
 *                                                           [INTEGER keyLength], [SEQUENCE { OID prf, NULL }] } },
 *                         SEQUENCE { OID cipher, OCTET iv } } }
 *   OCTET encryptedPrivateKeyInfo
 * }
 * </pre>
 */
final class Pbes2 {

    private static final String PBES2 = "2a864886f70d01050d";
    private static final String PBKDF2 = "2a864886f70d01050c";
    /** PBKDF2's default PRF when the parameters name none. */
    private static final String HMAC_SHA1 = "2a864886f70d0207";
    private static final Map<String, String> PRFS = Map.of(HMAC_SHA1, "PBKDF2WithHmacSHA1",
            "2a864886f70d0208", "PBKDF2WithHmacSHA224", "2a864886f70d0209", "PBKDF2WithHmacSHA256",
            "2a864886f70d020a", "PBKDF2WithHmacSHA384", "2a864886f70d020b", "PBKDF2WithHmacSHA512");
    /** Cipher OID: the JDK's algorithm and key length in bytes. */
    private record Scheme(String algorithm, int keyBytes) {}
    private static final Map<String, Scheme> CIPHERS = Map.of("608648016503040102", new Scheme("AES", 16),
            "608648016503040116", new Scheme("AES", 24), "60864801650304012a", new Scheme("AES", 32),
            "2a864886f70d0307", new Scheme("DESede", 24));

    private Pbes2() {}

    /** @return whether {@code der} is an EncryptedPrivateKeyInfo under PBES2 */
    static boolean is(byte[] der) {
        try {
            Der.Element outer = Der.read(der, 0, der.length);
            Der.Element algorithm = Der.read(der, outer.start(), outer.end());
            Der.Element oid = Der.read(der, algorithm.start(), algorithm.end());
            return HexFormat.of().formatHex(oid.contents(der)).equals(PBES2);
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** @return the PKCS#8 PrivateKeyInfo inside; a wrong password shows as a padding or key-spec failure */
    static byte[] decrypt(byte[] der, String pass) throws GeneralSecurityException {
        Der.Element outer = Der.read(der, 0, der.length);
        Der.Element algorithm = Der.read(der, outer.start(), outer.end());
        Der.Element data = Der.read(der, algorithm.end(), outer.end());
        Der.Element oid = Der.read(der, algorithm.start(), algorithm.end());
        Der.Element params = Der.read(der, oid.end(), algorithm.end());
        Der.Element kdf = Der.read(der, params.start(), params.end());
        Der.Element cipher = Der.read(der, kdf.end(), params.end());

        Der.Element kdfOid = Der.read(der, kdf.start(), kdf.end());
        if (!hex(der, kdfOid).equals(PBKDF2)) {
            throw new NoSuchAlgorithmException("PBES2 key derivation " + hex(der, kdfOid) + " (PBKDF2 is read)");
        }
        Der.Element kdfParams = Der.read(der, kdfOid.end(), kdf.end());
        Der.Element salt = Der.read(der, kdfParams.start(), kdfParams.end());
        Der.Element iterations = Der.read(der, salt.end(), kdfParams.end());
        String prf = HMAC_SHA1;
        for (int at = iterations.end(); at < kdfParams.end(); ) {
            Der.Element e = Der.read(der, at, kdfParams.end());
            if (e.tag() == Der.SEQUENCE) {
                prf = hex(der, Der.read(der, e.start(), e.end()));
            }
            at = e.end(); // an INTEGER here is the key length, which the cipher fixes anyway
        }
        Der.Element cipherOid = Der.read(der, cipher.start(), cipher.end());
        Der.Element iv = Der.read(der, cipherOid.end(), cipher.end());
        Scheme scheme = CIPHERS.get(hex(der, cipherOid));
        String kdfName = PRFS.get(prf);
        if (scheme == null || kdfName == null) {
            throw new NoSuchAlgorithmException("PBES2 with cipher " + hex(der, cipherOid) + " and PRF " + prf
                    + " (AES-CBC and 3DES-CBC with HMAC-SHA1/2 are read; convert the key with openssl pkcs8 -topk8"
                    + " -v2 aes-256-cbc)");
        }
        if (iv.end() - iv.start() > 16) {
            throw new InvalidKeySpecException("PBES2 IV of " + (iv.end() - iv.start()) + " bytes");
        }
        int rounds = new java.math.BigInteger(iterations.contents(der)).intValueExact();
        char[] password = pass.toCharArray(); // PBKDF2 takes them as UTF-8, as OpenSSL does the password's bytes
        byte[] key = SecretKeyFactory.getInstance(kdfName)
                .generateSecret(new PBEKeySpec(password, salt.contents(der), rounds, scheme.keyBytes * 8)).getEncoded();
        Cipher c = Cipher.getInstance(scheme.algorithm + "/CBC/PKCS5Padding");
        c.init(Cipher.DECRYPT_MODE, new SecretKeySpec(key, scheme.algorithm), new IvParameterSpec(iv.contents(der)));
        return c.doFinal(der, data.start(), data.end() - data.start());
    }

    private static String hex(byte[] der, Der.Element e) {
        return HexFormat.of().formatHex(der, e.start(), e.end());
    }
}
