@ARGS
Feature: Arguments are validated strictly
  Arguments are checked against the input schema (JSON Schema 2020-12) before anything
  else. A wrong type is rejected, never coerced; an unknown argument is rejected; the
  error names an offending argument in error.field. 15.0 is an integer in JSON Schema
  2020-12 and is accepted. arguments that is not an object is an invalid request (D-13):
  never a success (any JSON-RPC error will do), and -32602 or invalid_arguments should be the
  answer; null may mean no arguments. String
  values are never re-parsed: "null" or "[1]" as conversationId is a string, cleaned as usual.

  Background:
    Given a conversation "alpha" with 3 user messages "input 1" to "input 3"

  @ARG-3
  Scenario Outline: Arguments of the wrong type are rejected, not coerced
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}", "<field>": <value>}
      """
    Then the error code is "invalid_arguments"
    And the error field is "<field>"

    Examples:
      | field    | value    |
      | limit    | "15"     |
      | limit    | "20"     |
      | limit    | true     |
      | limit    | false    |
      | limit    | null     |
      | limit    | 1.5      |
      | limit    | [15]     |
      | limit    | {"n": 1} |
      | maxChars | "1000"   |
      | maxChars | true     |
      | maxChars | null     |
      | maxChars | 999.5    |

  @ARG-3
  Scenario Outline: A conversationId that is not a string is rejected
    Given the source conversation is bound to another valid conversation
    When I call the tool with arguments:
      """
      {"conversationId": <value>}
      """
    Then the error code is "invalid_arguments"
    And the error field is "conversationId"

    Examples:
      | value    |
      | 42       |
      | null     |
      | true     |
      | ["{alpha}"] |
      | {"id": "{alpha}"} |

  @ARG-3 @ARG-1
  Scenario: An integral number written with a fraction is an integer
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}", "limit": 2.0, "maxChars": 10.0}
      """
    Then the result has:
      | field          | value |
      | requestedLimit | 2     |
      | maxChars       | 10    |
      | returnedCount  | 2     |
      | totalChars     | 10    |

  @ARG-4
  Scenario Outline: An unknown argument is rejected and named
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}", "<name>": <value>}
      """
    Then the error code is "invalid_arguments"
    And the error field is "<name>"

    Examples:
      | name            | value |
      | query           | "x"   |
      | conversation_id | "x"   |
      | Limit           | 5     |
      | offset          | 0     |

  @ARG-4
  Scenario: An unknown argument with an empty name is rejected and named
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}", "": 1}
      """
    Then the error code is "invalid_arguments"
    And the error field is the empty name

  @ARG-5
  Scenario: Arguments are checked before the conversation ID
    When I call the tool with arguments:
      """
      {"conversationId": "!!", "limit": 0}
      """
    Then the error code is "invalid_arguments"
    And the error field is "limit"

  @ARG-5
  Scenario: Arguments are checked before the source conversation
    Given no source conversation is bound
    When I call the tool with arguments:
      """
      {"maxChars": 5000}
      """
    Then the error code is "invalid_arguments"
    And the error field is "maxChars"

  @ARG-5
  Scenario: Arguments are checked before the file
    Given no conversation "ghost" exists
    When I call the tool with arguments:
      """
      {"conversationId": "{ghost}", "extra": 1}
      """
    Then the error code is "invalid_arguments"
    And the error field is "extra"

  @ARG-5
  Scenario: With several wrong arguments, the field names one of them
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}", "limit": "x", "maxChars": 0}
      """
    Then the error code is "invalid_arguments"
    And the error field is one of "limit, maxChars"

  @ARG-1
  Scenario: A call without an arguments field uses every default
    Given the source conversation is "alpha"
    When I call the tool without an arguments field
    Then the result has:
      | field          | value   |
      | conversationId | {alpha} |
      | requestedLimit | 15      |
      | maxChars       | 1000    |
      | returnedCount  | 3       |

  @ARG-6 @ARG-8 @PROTO-2
  Scenario Outline: Arguments that are not an object are rejected, and the server keeps serving
    Given the source conversation is bound to another valid conversation
    When I call the tool with the arguments value <arguments>
    Then the call is rejected with an error, never a success
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the item contents are "input 1" to "input 3"
    And the rejection was a JSON-RPC error -32602 or the tool error invalid_arguments

    Examples:
      | arguments                              |
      | []                                     |
      | "x"                                    |
      | 5                                      |
      | true                                   |
      | 0                                      |
      | [{"conversationId": "{alpha}"}]        |
      | "{\"conversationId\": \"{alpha}\"}"    |

  @ARG-6
  Scenario: Arguments that are null mean no arguments, or are rejected like any non-object
    Given the source conversation is bound to another valid conversation
    When I call the tool with the arguments value null
    Then the call reads the source conversation with every default, or is rejected with an error

  @ARG-7 @SRC-4
  Scenario Outline: A conversationId that reads like another JSON value is a string, cleaned like any other
    Given the source conversation is bound to another valid conversation
    When I call the tool with arguments:
      """
      {"conversationId": "<raw>"}
      """
    Then the error code is "<code>"

    Examples:
      | raw    | code                    |
      | null   | conversation_not_found  |
      | None   | conversation_not_found  |
      | true   | conversation_not_found  |
      | false  | conversation_not_found  |
      | 15     | conversation_not_found  |
      | [1]    | conversation_not_found  |
      | {}     | invalid_conversation_id |
      | []     | invalid_conversation_id |
      | \u0020 | invalid_conversation_id |

  @ARG-7 @SRC-4
  Scenario Outline: A conversationId holding JSON text is cleaned, never parsed
    Given the source conversation is bound to another valid conversation
    When I call the tool with arguments:
      """
      {"conversationId": "<raw>"}
      """
    Then the result has:
      | field          | value   |
      | conversationId | {alpha} |
      | returnedCount  | 3       |

    Examples:
      | raw                 |
      | [\"{alpha}\"]       |
      | \"{alpha}\"         |
      | {\"\": \"{alpha}\"} |
