@AC-4
Feature: AC-4 Only real user inputs are candidates
  A candidate is a stored message object with role "user" and string content holding at
  least one character that is not whitespace, where whitespace is exactly what
  ECMAScript's String.prototype.trim removes. Assistant, tool and system messages, blank
  user messages and anything malformed are skipped silently. Content is returned exactly
  as stored.

  @SEL-1
  Scenario: Assistant, tool and system messages are never returned
    Given a conversation "alpha" with the messages:
      | role      | content           |
      | system    | You are helpful   |
      | user      | build a parser    |
      | assistant | Sure, here it is  |
      | tool      | {"exit": 0}       |
      | developer | internal          |
      | USER      | shouting role     |
      | user      | add tests         |
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the result has:
      | field         | value |
      | returnedCount | 2     |
      | hasMore       | false |
    And the item contents are:
      | content        |
      | build a parser |
      | add tests      |

  @SEL-1 @SEL-2
  Scenario Outline: A user message made only of whitespace is not a candidate
    Given a conversation "alpha" with the messages:
      | role | content   |
      | user | kept      |
      | user | <content> |
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the result has:
      | field         | value |
      | returnedCount | 1     |
      | hasMore       | false |
    And the item contents are:
      | content |
      | kept    |

    Examples: whitespace as ECMAScript trims it
      | content                             |
      |                                     |
      | \u{20}\u{20}\u{20}                  |
      | \u{9}\u{A}\u{B}\u{C}\u{D}           |
      | \u{A0}                              |
      | \u{1680}                            |
      | \u{2000}\u{2005}\u{200A}            |
      | \u{2000}\u{2001}\u{2002}\u{2003}\u{2004}\u{2005}\u{2006}\u{2007}\u{2008}\u{2009}\u{200A} |
      | \u{2028}\u{2029}                    |
      | \u{202F}\u{205F}                    |
      | \u{3000}                            |
      | \u{FEFF}                            |

  @SEL-2 @SEL-8
  Scenario Outline: Characters that only look blank are content
    Given a conversation "alpha" with the messages:
      | role | content   |
      | user | <content> |
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the items are:
      | content   | contentChars | originalChars | truncated |
      | <content> | <chars>      | <chars>       | false     |

    Examples: near misses
      | content              | chars |
      | \u{1C}               | 1     |
      | \u{1D}\u{1E}\u{1F}   | 3     |
      | \u{85}               | 1     |
      | \u{180E}             | 1     |
      | \u{200B}             | 1     |
      | \u{3000}\u{200B}     | 2     |

  @SEL-3
  Scenario: Entries that are not message objects, and non-string content, are skipped
    Given a conversation "alpha" whose file is:
      """
      {
        "id": "{alpha}",
        "messages": [
          "just a string",
          42,
          null,
          ["user", "array"],
          {"role": "user", "content": ["a", "list"]},
          {"role": "user", "content": {"text": "an object"}},
          {"role": "user", "content": 7},
          {"role": "user", "content": null},
          {"role": "user"},
          {"content": "no role"},
          {"role": "user", "content": "the only input"}
        ]
      }
      """
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the result has:
      | field         | value |
      | returnedCount | 1     |
      | hasMore       | false |
      | totalChars    | 14    |
    And the item contents are:
      | content        |
      | the only input |

  @SEL-8
  Scenario: Content is returned exactly as stored, surrounding whitespace included
    Given a conversation "alpha" with the messages:
      | role | content                                   |
      | user | \u{20}\u{20}indented\u{A}\u{A}two lines\u{9} |
      | user | \u{3000}全角\u{3000}                        |
      | user | one\u{D}\u{A}two\u{D}                         |
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the items are:
      | content                                      | contentChars | originalChars | truncated |
      | \u{20}\u{20}indented\u{A}\u{A}two lines\u{9} | 22           | 22            | false     |
      | \u{3000}全角\u{3000}                          | 4            | 4             | false     |
      | one\u{D}\u{A}two\u{D}                          | 9            | 9             | false     |
