@AC-10
Feature: AC-10 Results depend only on the stored file
  Regression tests need results that are a function of the stored conversation and the
  arguments: the same call gives the same result, and a change to the file shows in the
  very next call (no stale cache).

  @REG-1
  Scenario: The same call gives the same result every time
    Given a conversation "alpha" with the messages:
      | role | content |
      | user | one 😀  |
      | user | two     |
    When I call the tool 3 times with arguments:
      """
      {"conversationId": "{alpha}", "maxChars": 5}
      """
    Then every result is the same
    And the items are:
      | content | contentChars | originalChars | truncated |
      | on      | 2            | 5             | true      |
      | two     | 3            | 3             | false     |

  @REG-2
  Scenario: A change to the file is visible in the next call
    Given a conversation "alpha" with the messages:
      | role | content |
      | user | before  |
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    And conversation "alpha" gains the user message "after"
    And I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the item contents are:
      | content |
      | before  |
      | after   |

  @REG-2
  Scenario: A rewrite of the same size and time is visible too
    Given a conversation "alpha" with the messages:
      | role | content |
      | user | aaaa    |
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    And conversation "alpha" is rewritten in place with "bbbb", keeping its size and modification time
    And I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the item contents are:
      | content |
      | bbbb    |
