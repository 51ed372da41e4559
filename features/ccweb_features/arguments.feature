@ARGS
Feature: Arguments are validated strictly
  Arguments are checked against the input schema (JSON Schema 2020-12) before anything
  else. A wrong type is rejected, never coerced; an unknown argument is rejected; the
  error names an offending argument in error.field. 15.0 is an integer in JSON Schema
  2020-12 and is accepted.

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
