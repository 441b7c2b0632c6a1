package correction

import (
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var writeSermon = flag.Bool("sermon", false, "write testdata/sermon_2mb.txt (ignored by git) from the generator")

// sermonSentences are realistic transcript lines: auto-caption style
// (lowercase, no punctuation), Whisper style and typed notes, with book
// names, references, places and trap words mixed in.
var sermonSentences = []string{
	"good morning church it is so good to see all of you here today",
	"turn with me to first corinthians chapter thirteen verse four",
	"love is patient love is kind it does not envy it does not boast",
	"if you have your bibles open them to romans 8 28",
	"and we know that in all things god works for the good of those who love him",
	"now paul was writing to the church in corinth a city full of trouble",
	"when jesus came to capernaum he went into the synagogue and taught",
	"number 12 on the list is that we pray for one another",
	"i remember when i lost my job and did not know what to do",
	"mark my words the lord will provide for you",
	"these are not just acts of kindness they are acts of worship",
	"the kings of the earth set themselves against the lord",
	"Peter said to him Lord to whom shall we go",
	"john said to the crowd repent for the kingdom of heaven is near",
	"james and john went up the mountain with jesus",
	"so the question is am i willing to follow him",
	"psalms 23 tells us the lord is my shepherd i shall not want",
	"In Psalm 23:1 David writes that the Lord is his shepherd.",
	"the Psalms are the prayer book of the church",
	"Revelations 21 4 says he will wipe every tear from their eyes",
	"in philippians 4 13 paul says i can do all things through christ",
	"Phillipians 4:6 tells us not to be anxious about anything",
	"they walked from jerusalem to bethany and then to the mount of olives",
	"the pool of bethesda had five porches and many sick people lay there",
	"jesus prayed in the garden of gethsemane before he was arrested",
	"look at john 3 16 for god so loved the world",
	"one john 4 8 says whoever does not love does not know god",
	"second timothy 3 16 all scripture is breathed out by god",
	"2nd Kings 5 tells the story of Naaman the Syrian",
	"we read in genesis 1 1 in the beginning god created the heavens and the earth",
	"Moses led the people out of egypt and through the red sea",
	"the people of israel wandered in the wilderness for forty years",
	"hebrews 11 1 now faith is the assurance of things hoped for",
	"Our reading today is from Isaiah 53:5, he was pierced for our transgressions.",
	"the prophet isaiah saw the lord high and lifted up",
	"the book of job asks why the righteous suffer",
	"in acts 2 38 peter said repent and be baptized every one of you",
	"the song of songs is a love poem",
	"read song of solomon 2 4 he brought me to the banqueting house",
	"ephesians 2 8 9 for by grace you have been saved through faith",
	"galatians 5 22 the fruit of the spirit is love joy peace",
	"the apostle paul sailed from troas to philippi and then to thessalonica",
	"he went down to nazareth and was subject to them",
	"they came to bethlehem in judea as the prophet had written",
	"the samaritan woman met jesus at the well in sychar",
	"zion is the city of our god and calvary is where he died for us",
	"matthew 5 3 blessed are the poor in spirit",
	"luke 15 tells the story of the prodigal son",
	"deuteronomy 6 4 hear o israel the lord our god the lord is one",
	"first thessalonians 5 17 pray without ceasing",
	"proverbs 3 5 trust in the lord with all your heart",
	"the numbers do not lie our attendance is up this year",
	"mark 16 15 go into all the world and preach the gospel",
	"we will have a potluck after the service so bring a dish",
	"the youth group is going to the lake next saturday",
	"let us pray father we thank you for this day",
	"babylon fell and the exiles returned to jerusalem",
	"elijah ran from jezreel to beersheba and then to horeb",
	"the road to emmaus is where two disciples met the risen lord",
	"paul was shipwrecked on malta and then brought to rome",
	"daniel 3 tells of the fiery furnace in babylon",
	"in ecclesiastes 3 1 for everything there is a season",
	"revelation 3 20 behold i stand at the door and knock",
	"chapter 1 john says in the beginning was the word",
	"sister ruth will lead us in worship and brother john will preach",
	"Turn to 1st Corinthians 15 and II Corinthians 5:17.",
	"i am so thankful for every one of you",
	"then jesus went up to the temple in jerusalem for the feast",
	"the walls of jericho fell down after they marched around them",
	"abraham left ur and went to the land of canaan",
	"and that is what grace looks like when it walks into your life",
	"some of you came in this morning carrying a heavy burden",
	"you do not have to have it all together to come to him",
	"he is not waiting for you to clean yourself up first",
	"when we forgive we let go of the right to get even",
	"so let me ask you a question this morning",
	"what are you holding on to that god is asking you to release",
	"the world tells you that you are what you own",
	"but the gospel tells you that you are loved",
	"we are a family and families show up for each other",
	"if you are new with us we would love to meet you after the service",
	"there is a card in the seat in front of you",
	"prayer is not a last resort it is the first response",
	"we live in a culture that is always in a hurry",
	"faith is not the absence of doubt it is trust in the middle of it",
	"i want to close with a story about my grandmother",
	"she prayed for every one of her grandchildren by name every morning",
	"that kind of faithfulness changes generations",
	"this week i want to challenge you to do one thing",
	"call someone you have not talked to in a while and encourage them",
	"the band is going to come up and we are going to sing together",
	"let us stand and worship",
	"you are not too far gone and it is not too late",
	"whatever you are facing you are not facing it alone",
	"hope is an anchor for the soul firm and secure",
	"that is the good news of the gospel",
	"we give because he first gave to us",
	"our mission is to love god love people and make disciples",
	"small groups start again next week so sign up in the lobby",
	"thank you to everyone who served at the food pantry",
}

// buildSermon returns about size bytes of deterministic sermon text.
func buildSermon(size int) string {
	r := rand.New(rand.NewPCG(1, 2))
	var sb strings.Builder
	sb.Grow(size + 256)
	for sb.Len() < size {
		sb.WriteString(sermonSentences[r.IntN(len(sermonSentences))])
		if r.IntN(4) == 0 {
			sb.WriteByte('\n')
		} else {
			sb.WriteByte(' ')
		}
	}
	return sb.String()
}

func TestWriteSermon(t *testing.T) {
	if !*writeSermon {
		t.Skip("run with -sermon to write testdata/sermon_2mb.txt")
	}
	p := filepath.Join("testdata", "sermon_2mb.txt")
	if err := os.WriteFile(p, []byte(buildSermon(2<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
}
