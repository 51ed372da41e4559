@AC-10
Feature: AC-10 Results depend only on the stored file
  Regression tests need results that are a function of the stored conversation and the
  arguments: the same call gives the same result, and a change to the file shows in the
  very next call (no stale cache), errors included: a conversation that appears, becomes
  readable or is deleted shows as such on the next call.

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

  @REG-2
  Scenario: An hours-old conversation saved in place is visible in the next call
    Given a conversation "alpha" with the messages:
      | role | content |
      | user | before  |
    And conversation "alpha" was last saved 3 hours ago
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    And conversation "alpha" is saved in place with the user message "after"
    And I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the item contents are:
      | content |
      | before  |
      | after   |

  @REG-2
  Scenario: An hours-old conversation saved by rename is visible in the next call
    Given a conversation "alpha" with the messages:
      | role | content |
      | user | before  |
    And conversation "alpha" was last saved 3 hours ago
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    And conversation "alpha" is saved by rename with the user message "after"
    And I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the item contents are:
      | content |
      | before  |
      | after   |

  @REG-3
  Scenario: A conversation saved after a call that did not find it is found
    Given no conversation "alpha" exists
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    And conversation "alpha" is saved with the user message "saved since"
    And I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the item contents are:
      | content     |
      | saved since |

  @REG-3
  Scenario: A conversation repaired after a call that could not read it is read
    Given conversation "alpha" is stored as the bytes "{\"messages\": ["
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    And conversation "alpha" is repaired with the user message "repaired since"
    And I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the item contents are:
      | content        |
      | repaired since |

  @REG-3
  Scenario: A conversation deleted after a call that read it is not found
    Given a conversation "alpha" with the messages:
      | role | content  |
      | user | here now |
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    And conversation "alpha" is deleted
    And I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the error code is "conversation_not_found"
