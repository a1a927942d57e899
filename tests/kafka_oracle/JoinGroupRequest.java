package org.apache.kafka.common.requests;

/** Oracle build only: the constants of Kafka's JoinGroupRequest, without the request machinery. */
public class JoinGroupRequest {
    public static final String UNKNOWN_MEMBER_ID = "";
    public static final int UNKNOWN_GENERATION_ID = -1;
    public static final String UNKNOWN_PROTOCOL_NAME = "";
}
